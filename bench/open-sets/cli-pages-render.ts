import { htmlToText } from './common';

/*
 * The pure half of the cli-pages set (issue 42 §7): a man page, as mandoc renders it to an HTML fragment
 * (`mandoc -T html -O fragment`, man(7) and mdoc(7) alike), becomes one short Markdown reference page: `# <command>`,
 * the NAME line's description, the opening of DESCRIPTION, then option and command entries, each cut to its first
 * sentences. Pages stop at PAGE_LIMIT characters with whole entries. No I/O: the same HTML gives the same page.
 */

export const PAGE_LIMIT = 3000;
const DESCRIPTION_LIMIT = 600;
const ENTRY_BODY_LIMIT = 240;
const TAG_LIMIT = 90;
/** Sections whose entries say nothing about using the command. */
const SKIPPED_SECTIONS = /^(SEE ALSO|AUTHORS?|COPYRIGHT|REPORTING BUGS|BUGS|HISTORY|NOTES?|FILES|ENVIRONMENT|EXIT STATUS|EXIT CODES|DIAGNOSTICS|STANDARDS|COLOPHON|SYNOPSIS|NAME|RETURN VALUE|EXAMPLES?)$/i;

export type Block =
  | { kind: 'section'; title: string }
  | { kind: 'subsection'; section: string; title: string }
  | { kind: 'paragraph'; section: string; text: string }
  | { kind: 'entry'; section: string; tag: string; body: string };

const text = (html: string) => htmlToText(html).replace(/\s+/g, ' ').trim();

/** The end of the element opened at `start` (`<tag …>` … its matching `</tag>`), nested ones counted. */
function closeOf(html: string, start: number, tag: string): number {
  const pattern = new RegExp(`<${tag}[\\s>]|</${tag}>`, 'g');
  pattern.lastIndex = start;
  let depth = 0;
  for (let m = pattern.exec(html); m; m = pattern.exec(html)) {
    depth += m[0].startsWith('</') ? -1 : 1;
    if (depth === 0) return m.index + m[0].length;
  }
  return html.length;
}

const inner = (element: string) => element.replace(/^<[^>]*>/, '').replace(/<\/[a-z0-9]+>$/i, '');

/** `html` without the elements `tag` (nested ones counted). */
function without(html: string, tag: string): string {
  const open = new RegExp(`<${tag}[\\s>]`);
  let out = html;
  for (let at = out.search(open); at >= 0; at = out.search(open)) out = `${out.slice(0, at)} ${out.slice(closeOf(out, at, tag))}`;
  return out;
}

/** The prose of an entry's body: nested lists and examples left out (nested entries become blocks of their own). */
const bodyText = (html: string) => text(without(without(html, 'pre'), 'dl'));

/**
 * The blocks of a mandoc HTML fragment in order: section headings (h1) and subsections (h2), paragraphs, and
 * entries — a `<dt>`/`<dd>` pair, or a short paragraph followed by an indented block (DocBook's tagged form). Entries
 * nested in an entry's body follow it as entries of their own. Preformatted examples and tables are left out.
 */
export function blocksOf(html: string): Block[] {
  const blocks: Block[] = [];
  walk(html, { section: '' }, blocks, false);
  return fold(blocks);
}

function walk(html: string, at: { section: string }, blocks: Block[], entriesOnly: boolean): void {
  const token = /<h1 class="Sh"[^>]*>|<h2 class="Ss"[^>]*>|<dt[\s>]|<p class="Pp[^"]*">|<div class="Bd-indent">|<pre[\s>]|<table[\s>]/g;
  for (let m = token.exec(html); m; m = token.exec(html)) {
    const tag = /^<([a-z0-9]+)/.exec(m[0])![1]!;
    const end = closeOf(html, m.index, tag);
    const element = html.slice(m.index, end);
    token.lastIndex = end;
    const section = at.section;
    if (tag === 'h1') {
      at.section = text(inner(element));
      blocks.push({ kind: 'section', title: at.section });
    } else if (tag === 'h2') {
      if (!entriesOnly) blocks.push({ kind: 'subsection', section, title: text(inner(element)) });
    } else if (tag === 'dt') {
      const dd = /^\s*<dd[\s>]/.exec(html.slice(end));
      if (!dd) continue;
      const ddStart = end + dd[0].indexOf('<dd');
      const ddEnd = closeOf(html, ddStart, 'dd');
      const body = inner(html.slice(ddStart, ddEnd));
      // A nested entry with no body is an item of a column list (ssh's -o names), not an option split over two tags.
      if (!entriesOnly || bodyText(body) !== '') blocks.push({ kind: 'entry', section, tag: text(inner(element)), body: bodyText(body) });
      walk(body, at, blocks, true);
      token.lastIndex = ddEnd;
    } else if (tag === 'p') {
      const tagText = text(inner(element));
      const next = html.slice(end);
      if (tagText !== '' && tagText.length <= TAG_LIMIT && /^\s*<div class="Bd-indent">/.test(next) && !/^\s*<div class="Bd-indent">\s*<pre/.test(next)) {
        const divStart = end + next.indexOf('<div');
        const divEnd = closeOf(html, divStart, 'div');
        const body = inner(html.slice(divStart, divEnd));
        blocks.push({ kind: 'entry', section, tag: tagText, body: bodyText(body) });
        walk(body, at, blocks, true);
        token.lastIndex = divEnd;
      } else if (tagText !== '' && !entriesOnly) {
        blocks.push({ kind: 'paragraph', section, text: tagText });
      }
    } else if (tag === 'div') {
      walk(inner(element), at, blocks, entriesOnly);
    }
    // <pre> and <table>: examples and tables are skipped whole.
  }
}

const BULLET = /^[○•◦·\-*]?$/u;

/**
 * Tags split over several blocks, joined: an entry with no body followed by another ("-r" then "--recurse-paths",
 * one option), a short paragraph followed by an entry with no tag (help2man's hanging paragraphs), and a bullet item
 * holding the tag followed by an item with no tag (man pages converted from Markdown, as jq's).
 */
function fold(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    const next = blocks[i + 1];
    if (b.kind === 'entry' && BULLET.test(b.tag) && b.body.length <= TAG_LIMIT && next?.kind === 'entry' && next.tag === '') {
      out.push({ kind: 'entry', section: b.section, tag: b.body.replace(/:$/, '').trim(), body: next.body });
      i++;
    } else if (b.kind === 'paragraph' && b.text.length <= TAG_LIMIT && next?.kind === 'entry' && next.tag === '') {
      out.push({ kind: 'entry', section: b.section, tag: b.text, body: next.body });
      i++;
    } else if (b.kind === 'entry' && b.tag !== '' && b.body === '' && next?.kind === 'entry' && next.tag !== '') {
      blocks[i + 1] = { ...next, tag: `${b.tag}, ${next.tag}` };
    } else if (!(b.kind === 'entry' && BULLET.test(b.tag))) out.push(b);
  }
  return out;
}

/**
 * Whole sentences from the start of `prose` (paragraphs apart by a blank line, kept apart), as many as fit in `limit`;
 * at least one, cut at a word with "…" if the first is too long.
 */
export function leadSentences(prose: string, limit: number): string {
  // Sentences and, between them, their separators (a space, or a paragraph break).
  const parts = prose.split(/((?<=[.!?])[ ]+(?=[A-Z("`'])|\n\n)/);
  let out = '';
  for (let i = 0; i < parts.length; i += 2) {
    const next = i === 0 ? parts[0]! : `${out}${parts[i - 1]}${parts[i]}`;
    if (next.length > limit) break;
    out = next;
  }
  if (out !== '') return out.trim();
  const cut = prose.slice(0, limit);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1)).replace(/[\s,;:]+$/, '')} …`;
}

/** The NAME line's description: "tar - an archiving utility" → "an archiving utility". */
export function nameDescription(blocks: readonly Block[]): string {
  const name = blocks.find((b): b is Extract<Block, { kind: 'paragraph' }> => b.kind === 'paragraph' && b.section === 'NAME');
  if (!name) return '';
  const description = name.text.replace(/^.*?\s[-—–]+\s/, '').trim();
  return description.charAt(0).toUpperCase() + description.slice(1);
}

const entryLine = (tag: string, body: string) => `- \`${tag}\`: ${leadSentences(body, ENTRY_BODY_LIMIT)}`;

/**
 * One page. `keep`: tags (or the start of a tag, e.g. "-x" matches "-x, --extract, --get") of the entries to hold
 * first, whatever their place; the remaining room is filled with the other entries in the page's order. Entries are
 * printed in the man page's order, and an entry that would pass PAGE_LIMIT is left out whole.
 */
export function renderPage(command: string, html: string, keep: readonly string[] = []): string {
  const blocks = blocksOf(html);
  const head = [`# ${command}`, '', nameDescription(blocks)];
  // The opening of DESCRIPTION: its paragraphs before its first subsection.
  const start = blocks.findIndex((b) => b.kind === 'section' && b.title === 'DESCRIPTION');
  const description: string[] = [];
  for (const b of start < 0 ? [] : blocks.slice(start + 1)) {
    if (b.kind === 'section' || b.kind === 'subsection') break;
    if (b.kind === 'paragraph') description.push(b.text);
  }
  const opening = description.length > 0 ? leadSentences(description.join('\n\n'), DESCRIPTION_LIMIT) : '';
  if (opening !== '') head.push('', opening);
  const entries = blocks.filter((b): b is Extract<Block, { kind: 'entry' }> => b.kind === 'entry' && !SKIPPED_SECTIONS.test(b.section) && b.tag !== '' && b.body !== '');
  const wanted = (tag: string) => keep.some((k) => tag === k || tag.startsWith(`${k},`) || tag.startsWith(`${k} `) || tag.startsWith(`${k}=`) || tag.startsWith(`${k}[`));
  const lines = entries.map((e) => ({ line: entryLine(e.tag, e.body), kept: wanted(e.tag) }));
  let size = head.join('\n').length + 2;
  const chosen = new Set<number>();
  for (const pass of [true, false]) {
    lines.forEach((l, i) => {
      if (l.kept !== pass || chosen.has(i) || size + l.line.length + 1 > PAGE_LIMIT) return;
      // The first tag of a repeated option (a second `-v` elsewhere) is enough.
      if (lines.some((o, j) => j < i && chosen.has(j) && o.line.split('`: ')[0] === l.line.split('`: ')[0])) return;
      chosen.add(i);
      size += l.line.length + 1;
    });
  }
  const body = lines.filter((_l, i) => chosen.has(i)).map((l) => l.line);
  // Room left (a page whose options are told in prose, as crontab's): more of DESCRIPTION, whole sentences.
  if (opening !== '' && size < PAGE_LIMIT) {
    const longer = leadSentences(description.join('\n\n'), opening.length + PAGE_LIMIT - size);
    if (!longer.endsWith('…')) head[head.length - 1] = longer;
  }
  return `${[...head, '', ...body].join('\n').trim()}\n`;
}
