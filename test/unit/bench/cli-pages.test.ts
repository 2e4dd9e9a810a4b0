/**
 * The pure parts of the cli-pages open set (issue 42 §7, bench/open-sets/cli-pages*.ts): a man page as mandoc renders
 * it to HTML becomes a short Markdown page; the split by command; the mechanical checks of the hand-written questions.
 * No services, no sources: the HTML below is what mandoc 1.14.6 (-T html -O fragment) printed for the roff in the
 * comment above it.
 */
import { readFileSync } from 'node:fs';
import { isHeldOut } from '../../../bench/open-sets/common';
import { checkQuestions, occursAsWord } from '../../../bench/open-sets/cli-pages-check';
import { COMMANDS, QUESTIONS_FILE, readQuestions } from '../../../bench/open-sets/cli-pages';
import { PAGE_LIMIT, leadSentences, renderPage } from '../../../bench/open-sets/cli-pages-render';

/*
 * .SH NAME / demo \- frobnicate the widgets / .SH DESCRIPTION / \fBdemo\fR frobnicates … / .PP / A second paragraph.
 * .SS Modes / .TP / \fB\-x\fR, \fB\-\-extract\fR / Extract widgets. … / .SH OPTIONS / .TP / \fB\-C\fR, … / .TP
 * \fB\-r\fR / .TQ / \fB\-\-recurse\fR / Walk the tree. / .PP / \fB\-\-abort\fR / .RS 4 / Abort the operation. / .RE
 * .SH AUTHOR / Written by Someone.
 */
const HTML = `<table class="head"><tr><td class="head-ltitle">DEMO(1)</td></tr></table>
<div class="manual-text">
<section class="Sh">
<h1 class="Sh" id="NAME"><a class="permalink" href="#NAME">NAME</a></h1>
<p class="Pp">demo - frobnicate the widgets</p>
</section>
<section class="Sh">
<h1 class="Sh" id="DESCRIPTION"><a class="permalink" href="#DESCRIPTION">DESCRIPTION</a></h1>
<p class="Pp"><b>demo</b> frobnicates each widget. By default, it does not touch
    gadgets.</p>
<p class="Pp">A second paragraph.</p>
<section class="Ss">
<h2 class="Ss" id="Modes"><a class="permalink" href="#Modes">Modes</a></h2>
<dl class="Bl-tag">
  <dt id="x"><a class="permalink" href="#x"><b>-x</b>, <b>--extract</b></a></dt>
  <dd>Extract widgets. Arguments name the widgets.</dd>
</dl>
</section>
</section>
<section class="Sh">
<h1 class="Sh" id="OPTIONS"><a class="permalink" href="#OPTIONS">OPTIONS</a></h1>
<dl class="Bl-tag">
  <dt id="C"><a class="permalink" href="#C"><b>-C</b>,
    <b>--directory</b>=<i>DIR</i></a></dt>
  <dd>Change to DIR first. This is order-sensitive.</dd>
  <dt id="r"><a class="permalink" href="#r"><b>-r</b></a></dt>
  <dd></dd>
  <dt id="recurse"><a class="permalink" href="#recurse"><b>--recurse</b></a></dt>
  <dd>Walk the tree.</dd>
</dl>
<p class="Pp"><b>--abort</b></p>
<div class="Bd-indent">Abort the operation.</div>
</section>
<section class="Sh">
<h1 class="Sh" id="AUTHOR"><a class="permalink" href="#AUTHOR">AUTHOR</a></h1>
<p class="Pp">Written by Someone.</p>
</section>
</div>`;

describe('a man page (mandoc HTML) becomes a short Markdown page', () => {
  test('title, NAME description, DESCRIPTION opening, then entries of every form; AUTHOR left out', () => {
    expect(renderPage('demo', HTML)).toMatchInlineSnapshot(`
"# demo

Frobnicate the widgets

demo frobnicates each widget. By default, it does not touch gadgets.

A second paragraph.

- \`-x, --extract\`: Extract widgets. Arguments name the widgets.
- \`-C, --directory=DIR\`: Change to DIR first. This is order-sensitive.
- \`-r, --recurse\`: Walk the tree.
- \`--abort\`: Abort the operation.
"
`);
  });

  test('the same HTML gives the same bytes', () => {
    expect(renderPage('demo', HTML, ['--abort'])).toBe(renderPage('demo', HTML, ['--abort']));
  });

  test(`past ${PAGE_LIMIT} characters whole entries are left out, kept ones first, the page order kept`, () => {
    const filler = Array.from({ length: 40 }, (_, i) => `<dt><b>--opt${i}</b></dt><dd>${'Word '.repeat(20)}end.</dd>`).join('\n');
    const html = `<h1 class="Sh" id="NAME">NAME</h1><p class="Pp">big - many options</p><h1 class="Sh" id="OPTIONS">OPTIONS</h1><dl class="Bl-tag">${filler}<dt><b>--late</b></dt><dd>The one asked for.</dd></dl>`;
    const page = renderPage('big', html, ['--late']);
    expect(page.length).toBeLessThanOrEqual(PAGE_LIMIT);
    expect(page).toContain('- `--late`: The one asked for.');
    expect(page.trimEnd().split('\n').at(-1)).toBe('- `--late`: The one asked for.');
    expect(page.split('\n').every((line) => line === '' || line.startsWith('#') || line.startsWith('- `') || line === 'Many options')).toBe(true);
  });

  test('an entry body keeps its first whole sentences; one too long is cut at a word', () => {
    expect(leadSentences('One. Two is here. Three.', 18)).toBe('One. Two is here.');
    expect(leadSentences('Averyveryverylong sentence without end', 20)).toBe('Averyveryverylong …');
  });
});

describe('split by command (common rule, set cli-pages)', () => {
  test('about 30 % of the commands are held out (by name: all of a command\'s questions on one side)', () => {
    const held = COMMANDS.filter((c) => isHeldOut('cli-pages', c.name));
    expect(held.length / COMMANDS.length).toBeGreaterThan(0.2);
    expect(held.length / COMMANDS.length).toBeLessThan(0.45);
    // Pinned once: the split must never move.
    expect(['tar', 'kill', 'git-rebase', 'journalctl'].map((c) => isHeldOut('cli-pages', c))).toEqual([false, false, false, true]);
  });

  test('the committed questions parse, ids are unique, and every kind is present', () => {
    const questions = readQuestions(readFileSync(QUESTIONS_FILE, 'utf8'));
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(new Set(questions.map((q) => q.kind))).toEqual(new Set(['howto', 'which-flag', 'default', 'yes-no', 'neighbour', 'not-in-docs', 'absent-command']));
    expect(questions.filter((q) => q.answerable).every((q) => COMMANDS.some((c) => c.name === q.unit))).toBe(true);
  });
});

describe('honest questions: checked against the pages', () => {
  const documents = [
    { id: 'kill.md', text: '# kill\n\nThe default signal for kill is TERM.\n\n- `-l, --list`: List signal names.' },
    { id: 'tar.md', text: '# tar\n\n- `-C, --directory=DIR`: Change to DIR first. Uses the library.' },
  ];
  const base = { also: [], gold_answers: [], absent: [] };
  test('an answerable question whose gold string is not on its page, or that names no page, is dropped', () => {
    const { kept, dropped } = checkQuestions(
      [
        { ...base, id: 'kill-default', unit: 'kill', kind: 'default', question: 'Which signal by default?', answerable: true, gold_answers: ['TERM'] },
        { ...base, id: 'kill-abort', unit: 'kill', kind: 'which-flag', question: 'How to cancel?', answerable: true, gold_answers: ['--abort'] },
        { ...base, id: 'pkill-name', unit: 'pkill', kind: 'howto', question: 'Kill by name?', answerable: true, gold_answers: ['pkill'] },
      ],
      documents,
    );
    expect(kept.map((q) => q.id)).toEqual(['kill-default']);
    expect(dropped).toEqual([
      { id: 'kill-abort', reason: 'gold "--abort" not in kill.md' },
      { id: 'pkill-name', reason: 'no page pkill' },
    ]);
  });

  test('an unanswerable question is dropped when a string of its answer occurs in any page, as a whole word', () => {
    const { kept, dropped } = checkQuestions(
      [
        { ...base, id: 'tar-author', unit: 'tar', kind: 'not-in-docs', question: 'Who wrote tar?', answerable: false, absent: ['John Gilmore'] },
        { ...base, id: 'unrar-rar', unit: 'unrar', kind: 'absent-command', question: 'Extract a .rar?', answerable: false, absent: ['rar'] },
        { ...base, id: 'kill-list', unit: 'kill', kind: 'not-in-docs', question: 'List signals?', answerable: false, absent: ['--list'] },
        { ...base, id: 'tar-is-here', unit: 'tar', kind: 'absent-command', question: 'tar?', answerable: false, absent: ['zzz'] },
      ],
      documents,
    );
    // "rar" inside "library" is not the word rar.
    expect(kept.map((q) => q.id)).toEqual(['tar-author', 'unrar-rar']);
    expect(dropped).toEqual([
      { id: 'kill-list', reason: '"--list" occurs in kill.md' },
      { id: 'tar-is-here', reason: 'tar has a page: not an absent command' },
    ]);
  });

  test('whole words: a flag is not found inside a longer flag, case does not matter', () => {
    expect(occursAsWord('-C', 'use -C DIR')).toBe(true);
    expect(occursAsWord('-c', 'use --create')).toBe(false);
    expect(occursAsWord('port 22', 'the default is Port\n22 here')).toBe(true);
    expect(occursAsWord('22', 'in 2022')).toBe(false);
  });
});
