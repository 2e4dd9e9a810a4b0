import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { REPO_ROOT } from '../knowledge/common';
import { EVAL_SOURCES, type Document, type UnitQuestion } from './common';
import { CliQuestion, checkQuestions } from './cli-pages-check';
import { renderPage } from './cli-pages-render';
import type { BuiltSet } from './debian-faq';

/*
 * Set `cli-pages` (issue 42 §7): short English reference pages of command-line tools, rendered from the man pages of
 * Debian bookworm packages (pinned in bench/fetch-eval-sources.sh) by the pinned mandoc, and questions in a person's
 * words written by hand in bench/open-sets/cli-pages-questions.jsonl (committed; the pages are not). A unit is a
 * command: its page `<command>.md`, and every question about it (or, for a command not in the set, about that
 * command) falls on one side of the split. Answerable questions must find each gold string in their gold page;
 * unanswerable ones must find none of their `absent` strings in any page — the build drops and lists failures.
 */

export const CLI_PAGES_SET = 'cli-pages';
const MAN_DIR = path.join(EVAL_SOURCES, 'cli-pages', 'usr', 'share', 'man');
const MANDOC = path.join(EVAL_SOURCES, 'mandoc', 'usr', 'bin', 'mandoc');
export const QUESTIONS_FILE = path.join(REPO_ROOT, 'bench', 'open-sets', 'cli-pages-questions.jsonl');

/**
 * The commands: the page's name, its man page under usr/share/man, and the entries to hold first (the common
 * options, whatever their place in a long page); the rest of a page is filled in the man page's order.
 */
export const COMMANDS: ReadonlyArray<{ name: string; man: string; keep?: readonly string[] }> = [
  // archives
  { name: 'tar', man: 'man1/tar.1.gz', keep: ['-x', '-c', '-t', '-f', '-v', '-z', '-j', '-J', '-C', '--exclude'] },
  { name: 'gzip', man: 'man1/gzip.1.gz', keep: ['-c', '-d', '-k', '-l', '-r', '-t', '-#'] },
  { name: 'xz', man: 'man1/xz.1.gz', keep: ['-z', '-d', '-t', '-l', '-k', '-c', '-0', '-e', '-T'] },
  { name: 'zip', man: 'man1/zip.1.gz', keep: ['-r', '-e', '-u', '-d', '-x', '-q', '-#', '-m'] },
  { name: 'unzip', man: 'man1/unzip.1.gz', keep: ['-l', '-t', '[-d exdir]', '-o', '-n', '-q', '[-x xfile(s)]', '-p'] },
  // files
  { name: 'ls', man: 'man1/ls.1.gz', keep: ['-a', '-A', '-l', '-h', '-t', '-r', '-S', '-R', '-d', '-1'] },
  { name: 'cp', man: 'man1/cp.1.gz', keep: ['-a', '-i', '-n', '-p', '-R', '-u', '-v', '-s'] },
  { name: 'mv', man: 'man1/mv.1.gz', keep: ['-b', '-f', '-i', '-n', '-u', '-v', '-t'] },
  { name: 'rm', man: 'man1/rm.1.gz', keep: ['-f', '-i', '-I', '-r', '-d', '-v'] },
  { name: 'ln', man: 'man1/ln.1.gz', keep: ['-s', '-f', '-n', '-r', '-v'] },
  { name: 'chmod', man: 'man1/chmod.1.gz', keep: ['-c', '-R', '-v', '--reference'] },
  { name: 'chown', man: 'man1/chown.1.gz', keep: ['-R', '-h', '--from', '--reference', '-c'] },
  { name: 'df', man: 'man1/df.1.gz', keep: ['-a', '-h', '-H', '-i', '-T', '-t', '-x', '--total'] },
  { name: 'du', man: 'man1/du.1.gz', keep: ['-a', '-c', '-d', '-h', '-s', '--apparent-size', '--exclude'] },
  { name: 'find', man: 'man1/find.1.gz', keep: ['-maxdepth', '-name', '-iname', '-type', '-size', '-mtime', '-mmin', '-newer', '-user', '-empty', '-exec', '-delete', '-print0'] },
  { name: 'xargs', man: 'man1/xargs.1.gz', keep: ['-0', '-I', '-n', '-P', '-r', '-t', '-p'] },
  { name: 'file', man: 'man1/file.1.gz', keep: ['-b', '-i', '--mime-type', '-L', '-z'] },
  // text
  { name: 'grep', man: 'man1/grep.1.gz', keep: ['-E', '-F', '-i', '-v', '-w', '-c', '-l', '-o', '-n', '-A', '-B', '-C', '-r'] },
  { name: 'sed', man: 'man1/sed.1.gz', keep: ['-n', '-e', '-f', '-i', '-E', '-s'] },
  { name: 'sort', man: 'man1/sort.1.gz', keep: ['-f', '-h', '-n', '-R', '-r', '-k', '-o', '-t', '-u'] },
  { name: 'uniq', man: 'man1/uniq.1.gz', keep: ['-c', '-d', '-u', '-i'] },
  { name: 'head', man: 'man1/head.1.gz' },
  { name: 'tail', man: 'man1/tail.1.gz', keep: ['-c', '-f', '-F', '-n', '--pid', '-s'] },
  { name: 'wc', man: 'man1/wc.1.gz' },
  { name: 'cut', man: 'man1/cut.1.gz' },
  { name: 'diff', man: 'man1/diff.1.gz', keep: ['-q', '-s', '-u', '-y', '-i', '-w', '-B', '-r', '-N', '-x'] },
  { name: 'less', man: 'man1/less.1.gz', keep: ['-i', '-N', '-R', '-S', '-F', '-X', '+'] },
  { name: 'jq', man: 'man1/jq.1.gz', keep: ['--slurp/-s', '--null-input/-n', '--compact-output / -c', '--raw-output / -r', '--sort-keys / -S', '--arg name value'] },
  // processes
  { name: 'ps', man: 'man1/ps.1.gz', keep: ['-A', '-e', 'a', 'u', 'x', '-f', '-u userlist', '-p pidlist', '--forest', '-o format', '--sort spec'] },
  { name: 'kill', man: 'man1/kill.1.gz' },
  { name: 'pgrep', man: 'man1/pgrep.1.gz', keep: ['-signal', '-f', '-l', '-a', '-n', '-u', '-x', '-c'] },
  { name: 'killall', man: 'man1/killall.1.gz', keep: ['-e', '-I', '-i', '-l', '-s', '-u', '-v', '-w', '-o', '-y'] },
  { name: 'top', man: 'man1/top.1.gz', keep: ['-b', '-d', '-n', '-p', '-u', '-o', '-H'] },
  { name: 'htop', man: 'man1/htop.1.gz', keep: ['-d', '-u', '-p', '-s', '-t', '-H'] },
  { name: 'free', man: 'man1/free.1.gz', keep: ['-b', '-k', '-m', '-g', '-h', '-s', '-t', '-w'] },
  { name: 'watch', man: 'man1/watch.1.gz', keep: ['-d', '-n', '-t', '-e', '-g'] },
  { name: 'timeout', man: 'man1/timeout.1.gz' },
  { name: 'lsof', man: 'man8/lsof.8.gz', keep: ['-i [i]', '-p s', '-u s', '-c c', '+d s', '+D D', '-t', '-n', '-P'] },
  { name: 'fuser', man: 'man1/fuser.1.gz', keep: ['-a', '-k', '-i', '-m', '-n', '-v', '-SIGNAL'] },
  // system
  { name: 'systemctl', man: 'man1/systemctl.1.gz', keep: ['list-units', 'list-unit-files', 'status', 'start', 'stop', 'restart', 'enable', 'disable', 'mask', 'daemon-reload', '--failed', '--now'] },
  { name: 'journalctl', man: 'man1/journalctl.1.gz', keep: ['-f', '-n', '-r', '-o', '-x', '-b', '-k', '-u', '-p', '-S', '--disk-usage', '--vacuum-size=', '--no-pager'] },
  { name: 'dmesg', man: 'man1/dmesg.1.gz', keep: ['-C', '-c', '-H', '-l', '-T', '-w', '-x'] },
  { name: 'lsblk', man: 'man8/lsblk.8.gz', keep: ['-a', '-d', '-f', '-l', '-o', '-p', '-S'] },
  { name: 'crontab', man: 'man1/crontab.1.gz' },
  { name: 'sudo', man: 'man8/sudo.8.gz', keep: ['-b', '-E', '-e', '-i', '-K', '-k', '-l', '-s', '-u user'] },
  { name: 'man', man: 'man1/man.1.gz', keep: ['-k', '-f', '-a', '-w', '-S list'] },
  // network
  { name: 'ssh', man: 'man1/ssh.1.gz', keep: ['-D', '-f', '-i', '-J', '-L', '-N', '-p', '-R', '-v', '-X'] },
  { name: 'scp', man: 'man1/scp.1.gz', keep: ['-C', '-i', '-J', '-l', '-P', '-p', '-q', '-r'] },
  { name: 'ssh-keygen', man: 'man1/ssh-keygen.1.gz', keep: ['-b', '-C', '-f', '-l', '-N', '-p', '-R', '-t', '-y'] },
  { name: 'rsync', man: 'man1/rsync.1.gz', keep: ['--verbose', '--archive', '--recursive', '--update', '--dry-run', '--compress', '--exclude=PATTERN', '--delete', '--partial', '--progress', '-P', '--rsh=COMMAND', '--bwlimit=RATE'] },
  { name: 'curl', man: 'man1/curl.1.gz', keep: ['-C', '-d', '-f', '-H', '-I', '-k', '-L', '-o', '-O', '-s', '-X'] },
  { name: 'wget', man: 'man1/wget.1.gz', keep: ['-b', '-q', '-O file', '-c', '-t number', '-T seconds', '--limit-rate=amount', '-r', '-l depth', '-np', '-P prefix'] },
  { name: 'ip', man: 'man8/ip.8.gz' },
  { name: 'ss', man: 'man8/ss.8.gz', keep: ['-n', '-a', '-l', '-p', '-s', '-t', '-u', '-4', '-6'] },
  { name: 'ping', man: 'man8/ping.8.gz', keep: ['-4', '-6', '-c count', '-i interval', '-q', '-s packetsize', '-W timeout', '-w deadline'] },
  { name: 'dig', man: 'man1/dig.1.gz', keep: ['-p port', '-t type', '-x addr', '+short', '+trace'] },
  // git
  { name: 'git-rebase', man: 'man1/git-rebase.1.gz', keep: ['--onto <newbase>', '--continue', '--abort', '--quit', '--skip', '-i', '--autostash'] },
  { name: 'git-stash', man: 'man1/git-stash.1.gz', keep: ['list', 'show', 'pop', 'apply', 'drop', 'clear', '-u'] },
  { name: 'git-reset', man: 'man1/git-reset.1.gz', keep: ['--soft', '--mixed', '--hard', '--merge', '--keep'] },
  { name: 'git-log', man: 'man1/git-log.1.gz', keep: ['--follow', '--oneline', '--graph', '-p', '--stat', '--author=<pattern>', '--since=<date>', '--grep=<pattern>', '-<number>'] },
  // terminals
  { name: 'tmux', man: 'man1/tmux.1.gz', keep: ['C-b', 'attach-session', 'detach-client', 'kill-server', 'kill-session', 'list-sessions', 'new-session', 'split-window', '-L socket-name', '-f file'] },
  { name: 'screen', man: 'man1/screen.1.gz', keep: ['-d -r', '-ls', '-r', '-R', '-S sessionname', '-x', '-L'] },
];

export function readQuestions(text: string): CliQuestion[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const parsed = CliQuestion.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${QUESTIONS_FILE} line ${i + 1}: ${z.prettifyError(parsed.error)}`);
      return parsed.data;
    });
}

function manHtml(man: string): string {
  const file = path.join(MAN_DIR, man);
  if (!existsSync(file)) throw new Error(`${file} is missing: run bash bench/fetch-eval-sources.sh first`);
  // From the manual's root, where mandoc resolves `.so` links; its warnings (stderr) say nothing about the text.
  return execFileSync(MANDOC, ['-T', 'html', '-O', 'fragment', file], { cwd: MAN_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

export function buildCliPages(): BuiltSet {
  if (!existsSync(MANDOC)) throw new Error(`${MANDOC} is missing: run bash bench/fetch-eval-sources.sh first`);
  const documents: Document[] = COMMANDS.map((c) => ({ id: `${c.name}.md`, text: renderPage(c.name, manHtml(c.man), c.keep) }));
  const { kept, dropped } = checkQuestions(readQuestions(readFileSync(QUESTIONS_FILE, 'utf8')), documents);
  const questions: UnitQuestion[] = kept.map((q) => ({
    unit: q.unit,
    id: `cli-${q.kind}-${q.id}`,
    question: q.question,
    answerable: q.answerable,
    gold_doc_ids: q.answerable ? [`${q.unit}.md`, ...q.also.map((a) => `${a}.md`)] : [],
    gold_answers: q.answerable ? q.gold_answers : [],
  }));
  const kinds = new Map<string, number>();
  for (const q of kept) kinds.set(q.kind, (kinds.get(q.kind) ?? 0) + 1);
  const sizes = documents.map((d) => d.text.length).sort((a, b) => a - b);
  const notes = [
    `${documents.length} pages (${sizes[0]}–${sizes.at(-1)} characters, median ${sizes[Math.floor(sizes.length / 2)]}); ${kept.length} questions kept (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')})`,
    ...dropped.map((d) => `dropped ${d.id}: ${d.reason}`),
  ];
  return { documents, questions, notes };
}

export const CLI_PAGES_README = `# cli-pages (open evaluation set of issue 42 §7; built by bench/build-open-sets.ts — do not commit)

Sources: the man pages of Debian bookworm packages (bind9-dnsutils, coreutils, cron, curl, diffutils, file,
findutils, git-man, grep, gzip, htop, iproute2, iputils-ping, jq, less, lsof, man-db, openssh-client, procps, psmisc,
rsync, screen, sed, sudo, systemd, tar, tmux, unzip, util-linux, wget, xz-utils, zip; versions and sha256 pinned in
bench/fetch-eval-sources.sh), rendered by Debian's mandoc 1.14.6 (\`mandoc -T html -O fragment\`). Each page keeps its
package's licence (usr/share/doc/<package>/copyright in the extracted tree).

Documents: one short Markdown page per command, \`<command>.md\`: the command as title, the NAME line's description,
the opening of DESCRIPTION (≤ 600 characters, whole sentences), then option and command entries, each cut to its first
sentences (≤ 240 characters); the common entries (listed in bench/open-sets/cli-pages.ts) first, the rest in the man
page's order while the page stays ≤ 3,000 characters (entries whole).

Questions: written by hand, in a person's words, before any run (bench/open-sets/cli-pages-questions.jsonl); the kind
is in the id: cli-<kind>-<slug>, kinds howto, which-flag, default, yes-no, neighbour (a confusable neighbour command
or option), not-in-docs (a command of the set, a fact its page does not hold) and absent-command (a command not in the
set). Answerable: every gold string occurs in the gold page. Unanswerable: none of the strings a right answer would hold
occurs in any page (matched as whole words, case-insensitive); failures are dropped and listed below. gold_answers are
matched by \`ragtime eval\` as any-of, case-insensitive: short flags (-c and -C) are not told apart.
Split: by command, held out when sha256("ragtime-open-sets-v1:cli-pages:" + command)[0..8] % 10 < 3.
`;
