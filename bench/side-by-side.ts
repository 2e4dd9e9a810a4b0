import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SPECULATION_LEVELS, SpeculationLevel } from '../core/schemas/speculation';
import { REPO_ROOT } from '../runtime/repo-root';
import { parseArgs, positiveInt } from './support/args';
import { preparePeer } from './support/langgraph-peer';
import { loadAverage } from './support/machine';
import { ms, rate, table } from './support/stats';
import { writeSection } from './support/markdown-section';

/*
 * ragtime and the LangGraph.js peer (../shared/peers/langgraph-bench: the same graph and scenarios on LangGraph.js
 * with its SQLite checkpointer) on the same latency model, in one invocation (issue 17 §1): for each latency model,
 * ragtime's bench/orchestration.ts at each speculation level and the peer's bench.mjs, the same scenarios and
 * concurrency levels; then one table of ratios, ragtime ÷ peer (p50: below 1 is faster; runs/s: above 1 is more).
 * Both sides write an answer on route `answer` (ragtime's answer node, the peer's answer node): like with like.
 * The peer runs from a copy in a temporary directory (`npm ci --offline`, else `npm ci`), kept for the next run.
 *
 *   npx tsx bench/side-by-side.ts [--write docs/PERFORMANCE.md]
 */

const HELP = `usage: npx tsx bench/side-by-side.ts [options]
  --runs N[,N…]             measured runs per cell, one per --concurrency level (default 10,20,40)
  --complex-runs N[,N…]     the same for complex on ragtime, 4 workflows a run (default 6,10,20)
  --concurrency 1,10,50     (default 1,10,50; hitl only at 1, as the peer)
  --warmup N                ragtime's warm-up runs per cell, at least 2 × concurrency (default 5)
  --scenarios fast,planner,rewrite,complex,hitl
  --models zero,realistic   zero: every latency 0; realistic: llm 400 / embed 20 / search 20 ms, jitter 0.2
  --speculation off,answer  ragtime's levels at the realistic model (the zero model runs the first one only)
  --peer DIR                the peer's folder (default ../shared/peers/langgraph-bench beside the repository)
  --write FILE              put the table into FILE between the side-by-side markers (e.g. docs/PERFORMANCE.md)
  --section NAME            which markers (default main): side-by-side:NAME:begin … side-by-side:NAME:end
  --json FILE               also write every cell as JSON
env: TEMPORAL_ADDRESS (default 127.0.0.1:7233), as bench/orchestration.ts`;

const ROOT = REPO_ROOT;
const markers = (section: string) => ({
  begin: `<!-- side-by-side:${section}:begin (written by bench/side-by-side.ts) -->`,
  end: `<!-- side-by-side:${section}:end -->`,
});

type Model = { name: 'zero' | 'realistic'; llmMs: number; embedMs: number; searchMs: number; jitter: number };
const MODELS: Record<Model['name'], Model> = {
  zero: { name: 'zero', llmMs: 0, embedMs: 0, searchMs: 0, jitter: 0 },
  realistic: { name: 'realistic', llmMs: 400, embedMs: 20, searchMs: 20, jitter: 0.2 },
};
const describeModel = (model: Model): string =>
  model.name === 'zero' ? 'zero latency' : `llm ${model.llmMs} / embed ${model.embedMs} / search ${model.searchMs} ms, jitter ${model.jitter}`;
const latencyFlags = (model: Model): string[] =>
  ['--llm-ms', model.llmMs, '--embed-ms', model.embedMs, '--search-ms', model.searchMs, '--jitter', model.jitter].map(String);

/** One measured cell of either side, in the same terms. */
type Measured = { p50: number; p95: number; runsPerSecond: number; runs: number; resumeP50?: number };
type Row = { model: Model['name']; speculation: SpeculationLevel; scenario: string; concurrency: number; ragtime: Measured; peer: Measured | null };
type Phase = { what: string; started: string; loadBefore: string; loadAfter: string; seconds: number };

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10,20,40' },
      'complex-runs': { type: 'string', default: '6,10,20' },
      concurrency: { type: 'string', default: '1,10,50' },
      warmup: { type: 'string', default: '5' },
      scenarios: { type: 'string', default: 'fast,planner,rewrite,complex,hitl' },
      models: { type: 'string', default: 'zero,realistic' },
      speculation: { type: 'string', default: 'off,answer' },
      peer: { type: 'string', default: path.resolve(ROOT, '..', 'shared', 'peers', 'langgraph-bench') },
      write: { type: 'string' },
      section: { type: 'string', default: 'main' },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const concurrencies = values.concurrency.split(',').map((text) => positiveInt('concurrency', text.trim()));
  const runs = values.runs.split(',').map((text) => positiveInt('runs', text.trim()));
  if (runs.length !== concurrencies.length) throw new Error('--runs takes one number per --concurrency level');
  const models = values.models.split(',').map((name) => {
    const model = MODELS[name.trim() as Model['name']];
    if (!model) throw new Error(`unknown --models entry ${JSON.stringify(name)} (zero, realistic)`);
    return model;
  });
  const levels = values.speculation.split(',').map((level) => SpeculationLevel.parse(level.trim()));
  const started = new Date();
  const command = `npx tsx bench/side-by-side.ts ${process.argv.slice(2).join(' ')}`.trimEnd();
  console.log(`# bench/side-by-side — ${started.toISOString()}\ncommand: ${command}\nload average at start: ${loadAverage()}`);

  const peerDir = preparePeer(values.peer);
  const phases: Phase[] = [];
  const rows: Row[] = [];
  const work = os.tmpdir();
  for (const model of models) {
    const peer = await measurePhase(phases, `peer, ${describeModel(model)}`, () => runPeer(peerDir, model, values.scenarios, concurrencies, runs));
    for (const level of model.name === 'zero' ? levels.slice(0, 1) : levels) {
      const jsonFile = path.join(work, `ragtime-side-by-side-${process.pid}-${model.name}-${level}.json`);
      const args = [
        'tsx', 'bench/orchestration.ts', '--json', jsonFile, '--scenarios', values.scenarios, '--concurrency', concurrencies.join(','),
        '--runs', runs.join(','), '--complex-runs', values['complex-runs'], '--warmup', String(positiveInt('warmup', values.warmup)), '--in-process-runs', '200',
        '--speculation', level, ...latencyFlags(model),
      ];
      await measurePhase(phases, `ragtime, ${describeModel(model)}, speculation ${level}`, () => run('npx', args, ROOT));
      const ragtime = readRagtimeCells(jsonFile);
      rmSync(jsonFile, { force: true });
      for (const cell of ragtime) {
        const other = peer.find((row) => row.scenario === cell.scenario && row.concurrency === cell.concurrency) ?? null;
        rows.push({ model: model.name, speculation: level, scenario: cell.scenario, concurrency: cell.concurrency, ragtime: cell.measured, peer: other?.measured ?? null });
      }
    }
  }
  const markdown = render({ started, command, phases, rows, runs, complexRuns: values['complex-runs'], warmup: values.warmup, concurrencies, levels });
  console.log(`\n${markdown}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: started.toISOString(), command, phases, rows }, null, 2)}\n`);
  if (values.write) writeSection(path.resolve(ROOT, values.write), markers(values.section), markdown);
}

/** The peer, one invocation per concurrency level (each with its run count); hitl only at concurrency 1, as it does. */
async function runPeer(dir: string, model: Model, scenarios: string, concurrencies: number[], runs: number[]) {
  const cells: Array<{ scenario: string; concurrency: number; measured: Measured }> = [];
  for (const [level, concurrency] of concurrencies.entries()) {
    const output = await run('node', ['bench.mjs', '--runs', String(runs[level]), '--concurrency', String(concurrency), '--scenarios', scenarios, ...latencyFlags(model)], dir);
    for (const line of output.split('\n')) {
      if (!line.startsWith('{')) continue;
      const row = JSON.parse(line) as { kind: string; concurrency: number; runs: number; p50_ms: number; p95_ms: number; runs_per_s: number; resume_p50_ms?: number; answer_node: boolean };
      if (!row.answer_node) throw new Error('the peer ran without its answer node; ragtime writes answers, so compare with --answer');
      cells.push({
        scenario: row.kind,
        concurrency: row.concurrency,
        measured: { p50: row.p50_ms, p95: row.p95_ms, runsPerSecond: row.runs_per_s, runs: row.runs, ...(row.resume_p50_ms === undefined ? {} : { resumeP50: row.resume_p50_ms }) },
      });
    }
  }
  return cells;
}

type OrchestrationCell = {
  scenario: string;
  concurrency: number;
  temporal: { p50: number; p95: number; runsPerSecond: number; runs: number; failed: number };
  resume?: { p50: number };
};

function readRagtimeCells(file: string): Array<{ scenario: string; concurrency: number; measured: Measured }> {
  const { cells } = JSON.parse(readFileSync(file, 'utf8')) as { cells: OrchestrationCell[] };
  return cells.map((cell) => {
    if (cell.temporal.failed > 0) console.error(`ragtime ${cell.scenario} c=${cell.concurrency}: ${cell.temporal.failed} runs failed`);
    return {
      scenario: cell.scenario,
      concurrency: cell.concurrency,
      measured: {
        p50: cell.temporal.p50,
        p95: cell.temporal.p95,
        runsPerSecond: cell.temporal.runsPerSecond,
        runs: cell.temporal.runs,
        ...(cell.resume ? { resumeP50: cell.resume.p50 } : {}),
      },
    };
  });
}

async function measurePhase<T>(phases: Phase[], what: string, body: () => Promise<T>): Promise<T> {
  const started = new Date();
  const loadBefore = loadAverage();
  console.log(`\n## ${what} (${started.toISOString()}, load ${loadBefore})`);
  const result = await body();
  phases.push({ what, started: started.toISOString().slice(11, 19), loadBefore, loadAfter: loadAverage(), seconds: Math.round((Date.now() - started.getTime()) / 1000) });
  return result;
}

/** Runs a command, echoing its output; resolves with its stdout, rejects when it fails. */
function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (data: Buffer) => {
      stdout += data.toString();
      process.stdout.write(data);
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

const ratio = (a: number, b: number | undefined): string => (b === undefined || !(b > 0) ? '—' : (a / b).toFixed(2));

function render(input: {
  started: Date;
  command: string;
  phases: Phase[];
  rows: Row[];
  runs: number[];
  complexRuns: string;
  warmup: string;
  concurrencies: number[];
  levels: SpeculationLevel[];
}): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const lines = [
    `Measured ${input.started.toISOString().slice(0, 16).replace('T', ' ')} UTC with:`,
    '',
    '```',
    'make up && source scripts/env.sh',
    input.command,
    '```',
    '',
    `Machine: ${os.cpus().length} vCPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; ` +
      'ragtime through the dev server of `make up` with its worker in a process of its own, the peer in-process with its SQLite ' +
      `checkpointer. Measured runs per cell at concurrency ${input.concurrencies.join(' / ')}: ${input.runs.join(' / ')} ` +
      `(ragtime's complex: ${input.complexRuns.replaceAll(',', ' / ')}), after warm-up runs (ragtime: ${input.warmup}, at least 2 × concurrency; the peer: ` +
      'min(10, concurrency)). Both sides write an answer on route `answer`. Ratios are ragtime ÷ peer: p50 below 1 and runs/s above 1 ' +
      'are ragtime ahead.',
    '',
    table(
      ['phase', 'started (UTC)', 'seconds', 'load before → after (1, 5, 15 min)'],
      input.phases.map((phase) => [phase.what, phase.started, String(phase.seconds), `${phase.loadBefore} → ${phase.loadAfter}`]),
    ),
    '',
    table(
      ['latency model', 'speculation', 'scenario', 'conc.', 'ragtime p50 ms', 'peer p50 ms', '**p50 ratio**', 'ragtime runs/s', 'peer runs/s', '**runs/s ratio**'],
      input.rows.map((row) => [
        describeModel(MODELS[row.model]),
        row.speculation,
        row.scenario + (row.ragtime.resumeP50 !== undefined ? ` (resume: ${ms(row.ragtime.resumeP50)} vs ${row.peer?.resumeP50 === undefined ? '—' : ms(row.peer.resumeP50)} ms, ${ratio(row.ragtime.resumeP50, row.peer?.resumeP50)})` : ''),
        String(row.concurrency),
        ms(row.ragtime.p50),
        row.peer ? ms(row.peer.p50) : '—',
        `**${ratio(row.ragtime.p50, row.peer?.p50)}**`,
        rate(row.ragtime.runsPerSecond),
        row.peer ? rate(row.peer.runsPerSecond) : '—',
        `**${ratio(row.ragtime.runsPerSecond, row.peer?.runsPerSecond)}**`,
      ]),
    ),
    '',
    ...targets(input.rows, input.levels),
  ];
  return lines.join('\n');
}

/** Issue 17 §2's targets at the realistic model, as measured in this run. */
function targets(rows: Row[], levels: SpeculationLevel[]): string[] {
  const at = (speculation: SpeculationLevel, scenario: string, concurrency: number) =>
    rows.find((row) => row.model === 'realistic' && row.speculation === speculation && row.scenario === scenario && row.concurrency === concurrency);
  const highest = [...levels].sort((a, b) => SPECULATION_LEVELS.indexOf(b) - SPECULATION_LEVELS.indexOf(a))[0];
  const check = (label: string, row: Row | undefined, pick: 'p50' | 'runsPerSecond', bound: number) => {
    if (!row?.peer) return `- ${label}: not measured`;
    const value = row.ragtime[pick] / row.peer[pick];
    const met = pick === 'p50' ? value <= bound : value >= bound;
    return `- ${label}: ${value.toFixed(2)}× (target ${pick === 'p50' ? '≤' : '≥'} ${bound}×) — ${met ? 'met' : 'MISSED'}`;
  };
  const lines = ['Targets (issue 17 §2; realistic model):', ''];
  if (levels.includes('off')) {
    lines.push(check('speculation off, fast p50 at concurrency 1', at('off', 'fast', 1), 'p50', 1.05));
    lines.push(check('speculation off, complex p50 at concurrency 1', at('off', 'complex', 1), 'p50', 1.0));
  }
  if (highest && highest !== 'off') {
    lines.push(check(`speculation ${highest}, fast p50 at concurrency 1`, at(highest, 'fast', 1), 'p50', 0.7));
    lines.push(check(`speculation ${highest}, planner p50 at concurrency 1`, at(highest, 'planner', 1), 'p50', 0.55));
  }
  for (const level of levels) {
    for (const row of rows.filter((candidate) => candidate.model === 'realistic' && candidate.speculation === level && candidate.concurrency === 50)) {
      lines.push(check(`speculation ${level}, ${row.scenario} runs/s at concurrency 50`, row, 'runsPerSecond', 0.9));
    }
  }
  return lines;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
