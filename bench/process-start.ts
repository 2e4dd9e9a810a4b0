import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../runtime/repo-root';
import { parseArgs, positiveInt } from './support/args';
import { loadAverage } from './support/machine';
import { writeSection } from './support/markdown-section';
import { percentile, table } from './support/stats';

/*
 * What a process costs before it does anything: the CPU (user + system) of a new Node process that loads the CLI
 * (bin/main.ts, what every `ragtime` command loads) or the worker (workers/run-worker.ts), and the whole of
 * `ragtime --help`. Each checkout given with --tree is measured in turn, round by round, so that the machine's noise
 * falls on all of them alike; medians and the ratio to the first tree.
 *
 *   npx tsx bench/process-start.ts [--rounds 9] [--tree /path/to/other/checkout …] [--write docs/PERFORMANCE.md]
 */

const HELP = `usage: npx tsx bench/process-start.ts [options]
  --rounds N     rounds (default 9); each measures every tree once per entry
  --tree DIR     a checkout to measure (repeatable; default this one). The first is the baseline of the ratios.
  --write FILE   put the table into FILE between the process-start markers`;

const ENTRIES = [
  { name: 'load the CLI (bin/main.ts)', args: (tree: string) => ['-e', `require('tsx/cjs'); require(${JSON.stringify(path.join(tree, 'bin/main.ts'))})`] },
  { name: 'load the worker (workers/run-worker.ts)', args: (tree: string) => ['-e', `require('tsx/cjs'); require(${JSON.stringify(path.join(tree, 'workers/run-worker.ts'))})`] },
  { name: '`ragtime --help`', args: (tree: string) => [path.join(tree, 'bin/ragtime.js'), '--help'] },
];

/** CPU ms (user + system) of `node <args>` run in `tree`, read from /usr/bin/time's report. */
function cpuMsOf(tree: string, args: string[]): number {
  const run = spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, ...args], {
    cwd: tree,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, RAGTIME_OTEL_EXPORTER: 'none' },
  });
  const match = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(run.stderr);
  if (run.status !== 0 || !match) throw new Error(`node ${args.join(' ')} in ${tree} exited ${run.status}: ${run.stderr}`);
  return (Number(match[1]) + Number(match[2])) * 1000;
}

function main(): void {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '9' }, tree: { type: 'string', multiple: true }, write: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const rounds = positiveInt('--rounds', values.rounds, 9);
  const trees = (values.tree ?? [REPO_ROOT]).map((tree) => path.resolve(tree));
  const samples = trees.map(() => ENTRIES.map((): number[] => []));
  // One round first, not counted: tsx compiles each tree's sources into its cache on first load.
  for (const entry of ENTRIES) for (const tree of trees) cpuMsOf(tree, entry.args(tree));
  for (let round = 0; round < rounds; round += 1) {
    for (const [e, entry] of ENTRIES.entries()) {
      for (const [t, tree] of trees.entries()) samples[t]![e]!.push(cpuMsOf(tree, entry.args(tree)));
    }
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
  const labels = trees.map((tree) => `${path.basename(tree)} @ ${spawnSync('git', ['-C', tree, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()}`);
  const header = ['CPU ms, median', ...labels, ...labels.slice(1).map((label) => `${label} / ${labels[0]!}`)];
  const rows = ENTRIES.map((entry, e) => {
    const medians = trees.map((_, t) => percentile([...samples[t]![e]!].sort((a, b) => a - b), 50));
    return [entry.name, ...medians.map((value) => value.toFixed(0)), ...medians.slice(1).map((value) => `${(value / medians[0]!).toFixed(2)}×`)];
  });
  const markdown = [
    `\`npx tsx bench/process-start.ts --rounds ${rounds}${values.tree ? trees.map((tree) => ` --tree ${tree}`).join('') : ''}\` — ${new Date().toISOString().slice(0, 10)}, ` +
      `${os.cpus().length} cores, load ${loadAverage()} at the end; each cell the median of ${rounds} processes after one uncounted round, the trees measured in turn in every round.`,
    '',
    table(header, rows),
  ].join('\n');
  console.log(markdown);
  if (values.write) writeSection(path.resolve(REPO_ROOT, values.write), MARKERS, markdown, '## What a process costs before it does anything (bench/process-start.ts)');
}

const MARKERS = { begin: '<!-- process-start:begin (written by bench/process-start.ts) -->', end: '<!-- process-start:end -->' };

main();
