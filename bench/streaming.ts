import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAnswerStreamStore } from '../activities/adapters/sql-answer-stream';
import { followAnswer, type AnswerStreamReader } from '../client/follow-answer';
import { PUSHED_INTERVAL_MS } from '../client/follow-run';
import { RagClient } from '../client/rag-client';
import type { AnswerStreamMessage } from '../core/schemas/answer-stream';
import { SpeculationLevel } from '../core/schemas/speculation';
import { REPO_ROOT } from '../runtime/repo-root';
import { parseArgs, positiveInt, temporalAddress, temporalSecurity } from './support/args';
import { latencyFromFlags } from './support/latency';
import { listeningPid, loadAverage, ownCpuMs, processCpuMs, processTreeCpuMs, sourceInfo } from './support/machine';
import { SIMPLE_QUESTION } from './support/scenarios';
import { ms, percentile, table } from './support/stats';
import { epochMs, startStreamingLlmServer, type WriterRecord } from './support/streaming-llm-server';
import { preparePeer, startStreamingPeer } from './support/streaming-peer';
import type { StreamingWorkerConfig, StreamingWorkerReply } from './support/streaming-worker-process';
import { writeSection } from './support/markdown-section';

/*
 * Streaming answers, measured (issue 25 §3): time to the first answer token a listener is shown vs time to the full
 * answer, ragtime beside the LangGraph.js peer streaming its answer node, in one invocation, runs alternating.
 * Both read one loopback model (support/streaming-llm-server.ts) that takes --llm-ms to its first token, then writes
 * one token every --token-ms; it records when each token left, so each listener is also compared with the writer.
 * - ragtime: a worker in its own process (the real activity code; the OpenAI adapter streaming the answer writer's
 *   request through the `openai` SDK; the side channel store in a SQLite file), runs started with RagClient.ask and
 *   followed with followAnswer at each --intervals poll interval: first token = the first `delta` message, full answer
 *   = the outcome settled (and the `final` message after it). The fast scenario: retrieve → grade (--llm-ms) → answer.
 * - the peer: bench/peers/langgraph-streaming/stream.mjs, the same graph and path, its answer node ChatOpenAI
 *   (streaming) against the same model, followed with streamMode messages: first token = the first answer-node chunk,
 *   full answer = the stream's end.
 *
 *   npx tsx bench/streaming.ts [--runs 20] [--llm-ms 400] [--token-ms 20] [--tokens 120] [--write docs/PERFORMANCE.md]
 */

const HELP = `usage: npx tsx bench/streaming.ts [options]
  --runs N               measured runs per variant (default 20), after --warmup rounds (default 3)
  --llm-ms N             every model call's latency to its first token (default 400)
  --token-ms N           then one answer token every N ms (default 20, 50 tokens/s)
  --tokens N             answer tokens, rounded up to whole sentences of 8 (default 120)
  --embed-ms, --search-ms, --jitter, --seed   the rest of the latency model (default 20, 20, 0.2, 1)
  --intervals 100,25     ragtime's followAnswer poll intervals, ms (100 is its default)
  --speculation off,answer   ragtime's levels
  --database-url URL     a second worker with the side channel (and audit) on PostgreSQL: adds its push variant per
                         level (LISTEN/NOTIFY) beside the SQLite file's (poll, and its push over a local socket)
  --peer DIR             the streaming peer (default bench/peers/langgraph-streaming)
  --write FILE           put the tables into FILE between the streaming markers (docs/PERFORMANCE.md)
  --json FILE            also write every run as JSON
env: TEMPORAL_ADDRESS (default 127.0.0.1:7233)`;

const MARK = { begin: '<!-- streaming:begin (written by bench/streaming.ts) -->', end: '<!-- streaming:end -->' };
const HEADING = '## Streaming answers: time to first token (issue 25 §3)';

/** `store`: the worker whose side channel the run's listener reads: the SQLite file (the default) or PostgreSQL. */
/** `askOnChange`: followAnswer asks the run only when its history grew (issue 47 §3); false: at every read, as before. */
type Variant = { side: 'ragtime' | 'peer'; speculation?: SpeculationLevel; intervalMs?: number; push?: boolean; store?: 'sqlite' | 'postgres'; askOnChange?: boolean };
/**
 * One run, ms from its start; `writer*` are the model's own writes; `lag`: mean delay from a token's write to its
 * display; `deltas`: screen updates (reads that brought new text).
 */
type Run = { firstToken: number; full: number; finalShown: number; writerFirst: number; writerLast: number; lag: number; deltas: number; exact: boolean; cpuMs: number; cpu: CpuParts };
/** CPU ms by process: ragtime's worker, the Temporal server, this process (listener and model), PostgreSQL, the peer. */
type CpuParts = { worker: number; server: number; bench: number; database: number; peer: number };

const pushLabel = (variant: Variant) =>
  variant.store === 'postgres' ? `PostgreSQL, push (NOTIFY; fallback poll ${PUSHED_INTERVAL_MS} ms)` : `SQLite, push (local socket; fallback poll ${PUSHED_INTERVAL_MS} ms)`;
const label = (variant: Variant) =>
  variant.side === 'peer'
    ? 'LangGraph.js peer'
    : `ragtime, speculation ${variant.speculation}, ${variant.push ? pushLabel(variant) : `${variant.store === 'postgres' ? 'PostgreSQL' : 'SQLite'}, poll ${variant.intervalMs} ms`}${variant.askOnChange ? ', run asked when its history grew' : ''}`;

/** How many times a listener's screen changed: deltas that arrive within a millisecond of each other are one update. */
const updates = (shown: Array<{ at: number }>): number => shown.filter((entry, index) => index === 0 || entry.at - (shown[index - 1]?.at ?? 0) > 1).length;

/** Mean over the writer's writes of the time until a listener had shown that much of the answer. */
function displayLag(writer: WriterRecord, shown: Array<{ at: number; chars: number }>): number {
  const lags = writer.writes.map((write) => (shown.find((entry) => entry.chars >= write.chars)?.at ?? Number.NaN) - write.at);
  return lags.reduce((sum, lag) => sum + lag, 0) / Math.max(1, lags.length);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '3' },
      'llm-ms': { type: 'string', default: '400' },
      'token-ms': { type: 'string', default: '20' },
      tokens: { type: 'string', default: '120' },
      'embed-ms': { type: 'string', default: '20' },
      'search-ms': { type: 'string', default: '20' },
      jitter: { type: 'string', default: '0.2' },
      seed: { type: 'string', default: '1' },
      intervals: { type: 'string', default: '100,25' },
      speculation: { type: 'string', default: 'off,answer' },
      peer: { type: 'string', default: path.join(REPO_ROOT, 'bench', 'peers', 'langgraph-streaming') },
      write: { type: 'string' },
      json: { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return console.log(HELP);
  const runs = positiveInt('runs', values.runs);
  const warmup = positiveInt('warmup', values.warmup);
  const latency = latencyFromFlags(values);
  const tokenMs = positiveInt('token-ms', values['token-ms']);
  const tokens = positiveInt('tokens', values.tokens);
  const intervals = values.intervals.split(',').map((text) => positiveInt('intervals', text.trim()));
  const levels = values.speculation.split(',').map((level) => SpeculationLevel.parse(level.trim()));
  const databaseUrl = values['database-url'];
  // The SQLite file read by polling (as its readers did before issue 47 §2) and with its push (a local socket); with
  // --database-url, PostgreSQL's push too (a second worker, its stores there).
  // The poll variants ask the run at every read, as before issue 47 §3; a pushed listener without steps reads about
  // once a second and does not read the run's mark either way (client/follow-run.ts).
  const pushed = (store: 'sqlite' | 'postgres', speculation: SpeculationLevel) => ({ side: 'ragtime' as const, speculation, intervalMs: intervals[0] as number, push: true, store });
  const variants: Variant[] = [
    ...levels.flatMap((speculation) => [
      ...intervals.map((intervalMs) => ({ side: 'ragtime' as const, speculation, intervalMs, store: 'sqlite' as const, askOnChange: false })),
      pushed('sqlite', speculation),
      ...(databaseUrl ? [pushed('postgres', speculation)] : []),
    ]),
    { side: 'peer' },
  ];
  const started = new Date();
  const command = `npx tsx bench/streaming.ts ${process.argv.slice(2).join(' ')}`.trimEnd();
  const loadBefore = loadAverage();
  console.log(`# bench/streaming — ${started.toISOString()}\ncommand: ${command}\nload average at start: ${loadBefore}`);

  const model = await startStreamingLlmServer({ llmMs: latency.llmMs, tokenMs, tokens, jitter: latency.jitter, seed: latency.seed });
  const work = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-streaming-'));
  const address = temporalAddress();
  const taskQueue = `bench-streaming-${process.pid}`;
  const config: StreamingWorkerConfig = { address, taskQueue, baseUrl: model.baseUrl, apiKey: 'bench-key', sqliteFile: path.join(work, 'audit.sqlite'), latency };
  const startWorker = async (workerConfig: StreamingWorkerConfig) => {
    const child = fork(require.resolve('./support/streaming-worker-process'), [JSON.stringify(workerConfig)], {
      execArgv: [...process.execArgv, '--require', require.resolve('tsx/cjs')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const reply = await new Promise<StreamingWorkerReply>((resolve) => child.once('message', resolve));
    if (reply.type !== 'ready') throw new Error(`the ragtime worker failed: ${reply.message}`);
    return { child, pid: reply.pid };
  };
  console.log(`model at ${model.baseUrl}; starting the ragtime worker${databaseUrl ? 's' : ''} (task queue ${taskQueue}) and the peer`);
  const workers = [await startWorker(config)];
  const pgConfig: StreamingWorkerConfig | null = databaseUrl ? { ...config, taskQueue: `${taskQueue}-pg`, databaseUrl } : null;
  if (pgConfig) workers.push(await startWorker(pgConfig));
  const peerFlags = ['--base-url', model.baseUrl, '--llm-ms', String(latency.llmMs), '--embed-ms', String(latency.embedMs), '--search-ms', String(latency.searchMs), '--jitter', String(latency.jitter)];
  const peer = await startStreamingPeer(preparePeer(values.peer), peerFlags);
  const rag = await RagClient.connect({ address, taskQueue, connection: temporalSecurity() });
  const pgRag = pgConfig ? await RagClient.connect({ address, taskQueue: pgConfig.taskQueue, connection: temporalSecurity() }) : null;
  const reader = createAnswerStreamStore({ sqliteFile: config.sqliteFile });
  const pgReader = databaseUrl ? createAnswerStreamStore({ sqliteFile: ':memory:', databaseUrl }) : null;
  // The same store without its push: the poll variants read it as SQLite's readers did before issue 47 §2.
  const pollingReader: AnswerStreamReader = { eventsOf: (...args) => reader.eventsOf(...args) };
  const readerOf = (variant: Variant): AnswerStreamReader => (!variant.push ? pollingReader : variant.store === 'postgres' && pgReader ? pgReader : reader);
  const serverPid = listeningPid(address);
  // PostgreSQL's processes (the side channel, audit and turn stores with --database-url) count as ragtime's.
  const databasePid = databaseUrl ? listeningPid(`x:${new URL(databaseUrl).port || '5432'}`) : null;
  const cpuParts = (): CpuParts => ({
    worker: workers.reduce((sum, worker) => sum + (processCpuMs(worker.pid) ?? 0), 0),
    server: processCpuMs(serverPid) ?? 0,
    bench: ownCpuMs(),
    database: processTreeCpuMs(databasePid) ?? 0,
    peer: processCpuMs(peer.pid) ?? 0,
  });
  const sumOf = (parts: CpuParts) => parts.worker + parts.server + parts.bench + parts.database + parts.peer;
  const cpuSince = (before: CpuParts): CpuParts => {
    const now = cpuParts();
    return { worker: now.worker - before.worker, server: now.server - before.server, bench: now.bench - before.bench, database: now.database - before.database, peer: now.peer - before.peer };
  };

  const writerOf = (since: number, kind: WriterRecord['kind']): WriterRecord => {
    const record = model.answersSince(since).filter((candidate) => candidate.kind === kind).at(-1);
    if (!record || record.writes.length === 0) throw new Error(`the model wrote no ${kind} since the run started`);
    return record;
  };

  async function ragtimeRun(variant: Variant, id: string): Promise<Run> {
    const workflowId = `rag-bench-stream-${process.pid}-${id}`;
    const shown: Array<{ at: number; chars: number }> = [];
    let chars = 0;
    let final: { at: number; replaced: boolean; text: string } | null = null;
    let settled = Number.NaN;
    const cpu = cpuParts();
    const t0 = epochMs();
    const client = variant.store === 'postgres' && pgRag ? pgRag : rag;
    const pending = client.ask(SIMPLE_QUESTION, { sessionId: `bench-stream-${id}`, workflowId, speculation: variant.speculation }).then((outcome) => ((settled = epochMs()), outcome));
    const onMessage = (message: AnswerStreamMessage) => {
      const at = epochMs();
      if (message.type === 'delta') shown.push({ at, chars: (chars += message.text.length) });
      if (message.type === 'discard') chars = 0;
      if (message.type === 'final') final = { at, replaced: message.replaced, text: message.text };
    };
    const outcome = await followAnswer(pending, client, workflowId, readerOf(variant), onMessage, { intervalMs: variant.intervalMs, ...(variant.askOnChange === undefined ? {} : { askOnChange: variant.askOnChange }) });
    if (outcome.status !== 'completed' || outcome.route !== 'answer' || final === null) throw new Error(`ragtime run ${id} ended ${outcome.status}/${outcome.route} without a final answer`);
    const last = final as { at: number; replaced: boolean; text: string };
    const writer = writerOf(t0, 'answer_draft');
    return {
      firstToken: (shown[0]?.at ?? Number.NaN) - t0,
      full: settled - t0,
      finalShown: last.at - t0,
      writerFirst: (writer.writes[0]?.at ?? Number.NaN) - t0,
      writerLast: (writer.writes.at(-1)?.at ?? Number.NaN) - t0,
      lag: displayLag(writer, shown),
      deltas: updates(shown),
      exact: !last.replaced && last.text === outcome.answer?.text,
      ...withCpu(cpuSince(cpu)),
    };
  }

  const withCpu = (parts: CpuParts) => ({ cpu: parts, cpuMs: sumOf(parts) });
  async function peerRun(id: string): Promise<Run> {
    const cpu = cpuParts();
    const run = await peer.run(id);
    const writer = writerOf(run.started, 'text');
    return {
      firstToken: (run.tokens[0]?.at ?? Number.NaN) - run.started,
      full: run.done - run.started,
      finalShown: run.done - run.started,
      writerFirst: (writer.writes[0]?.at ?? Number.NaN) - run.started,
      writerLast: (writer.writes.at(-1)?.at ?? Number.NaN) - run.started,
      lag: displayLag(writer, run.tokens),
      deltas: updates(run.tokens),
      exact: run.text === run.answer,
      ...withCpu(cpuSince(cpu)),
    };
  }

  // Round r runs every variant once, starting from variant r mod V, so that no variant always follows another.
  const measured = new Map<Variant, Run[]>(variants.map((variant) => [variant, []]));
  // What ragtime's processes (worker, Temporal server, PostgreSQL) spend during a peer run is the trail of the ragtime
  // run before it (the server's history and visibility tasks, the worker's cache): it is counted there, not the peer's.
  let previousRagtime: Run | null = null;
  const moveTrail = (peerRun: Run, ragtimeRun: Run) => {
    for (const part of ['worker', 'server', 'database'] as const) {
      ragtimeRun.cpu[part] += peerRun.cpu[part];
      peerRun.cpu[part] = 0;
    }
    ragtimeRun.cpuMs = sumOf(ragtimeRun.cpu);
    peerRun.cpuMs = sumOf(peerRun.cpu);
  };
  const startedAt = Date.now();
  console.log(`ragtime worker pid ${workers.map((worker) => worker.pid).join(', ')}, peer pid ${peer.pid}; ${variants.length} variants × (${warmup} + ${runs}) rounds`);
  try {
    for (let round = 0; round < warmup + runs; round += 1) {
      for (let k = 0; k < variants.length; k += 1) {
        const variant = variants[(round + k) % variants.length] as Variant;
        const id = `${round}-${k}`;
        const result = variant.side === 'peer' ? await peerRun(id) : await ragtimeRun(variant, id);
        if (variant.side === 'peer' && previousRagtime) moveTrail(result, previousRagtime);
        if (variant.side === 'ragtime') previousRagtime = result;
        if (round >= warmup) measured.get(variant)?.push(result);
      }
      console.log(`round ${round + 1}/${warmup + runs}${round < warmup ? ' (warm-up)' : ''}, load ${loadAverage()}`);
    }
  } finally {
    await peer.stop();
    for (const worker of workers) {
      worker.child.send({ type: 'stop' });
      await new Promise((resolve) => worker.child.once('exit', resolve));
    }
    await reader.close();
    await pgReader?.close();
    await rag.close();
    await pgRag?.close();
    await model.close();
    rmSync(work, { recursive: true, force: true });
  }
  const seconds = Math.round((Date.now() - startedAt) / 1000);
  const markdown = render({ started, command, loadBefore, loadAfter: loadAverage(), seconds, runs, warmup, latency, tokenMs, tokens, variants, measured, peer: peer.describe });
  console.log(`\n${markdown}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: started.toISOString(), command, variants: variants.map((variant) => ({ ...variant, runs: measured.get(variant) })) }, null, 2)}\n`);
  if (values.write) writeSection(path.resolve(REPO_ROOT, values.write), MARK, markdown, HEADING);
}

const p = (values: number[], at: number) => percentile([...values].sort((a, b) => a - b), at);
/** CPU is read from /proc in 10 ms ticks: a mean over the runs says more than a median of ticks. */
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

function render(input: {
  started: Date; command: string; loadBefore: string; loadAfter: string; seconds: number; runs: number; warmup: number;
  latency: { llmMs: number; embedMs: number; searchMs: number; jitter: number }; tokenMs: number; tokens: number;
  variants: Variant[]; measured: Map<Variant, Run[]>; peer: string;
}): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const peerRuns = input.measured.get(input.variants.find((variant) => variant.side === 'peer') as Variant) ?? [];
  const peerFirst = p(peerRuns.map((run) => run.firstToken), 50);
  const peerFull = p(peerRuns.map((run) => run.full), 50);
  const rows = input.variants.map((variant) => {
    const list = input.measured.get(variant) ?? [];
    const of = (pick: (run: Run) => number) => list.map(pick);
    const first = of((run) => run.firstToken);
    const full = of((run) => run.full);
    const overhead = of((run) => run.firstToken - run.writerFirst);
    return [
      label(variant),
      String(list.length),
      `**${ms(p(first, 50))}** / ${ms(p(first, 95))}`,
      `**${ms(p(full, 50))}** / ${ms(p(full, 95))}`,
      (p(first, 50) / p(full, 50)).toFixed(2),
      ms(p(of((run) => run.writerFirst), 50)),
      `${ms(p(overhead, 50))} / ${ms(p(overhead, 95))}`,
      ms(p(of((run) => run.lag), 50)),
      ms(p(of((run) => run.full - run.writerLast), 50)),
      ms(p(of((run) => run.finalShown - run.full), 50)),
      ms(p(of((run) => run.deltas), 50)),
      `${list.filter((run) => run.exact).length}/${list.length}`,
      ms(mean(of((run) => run.cpuMs))),
      (['worker', 'server', 'bench', 'database', 'peer'] as const).map((part) => ms(mean(of((run) => run.cpu[part])))).join(' / '),
      variant.side === 'peer' ? '—' : `**${(p(first, 50) / peerFirst).toFixed(2)}** / **${(p(full, 50) / peerFull).toFixed(2)}**`,
    ];
  });
  return [
    `Measured ${input.started.toISOString().slice(0, 16).replace('T', ' ')} UTC (${sourceInfo()}) with:`,
    '',
    '```',
    'make up && source scripts/env.sh',
    input.command,
    '```',
    '',
    `Machine: ${os.cpus().length} vCPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, shared with other sessions. ` +
      `Load (1, 5, 15 min) ${input.loadBefore} before → ${input.loadAfter} after; ${input.seconds} s of runs. ` +
      `Model: first token after llm ${input.latency.llmMs} ms × (1 ± ${input.latency.jitter}), then ${input.tokens} tokens (rounded up to sentences of 8) one every ${input.tokenMs} ms; ` +
      `grade ${input.latency.llmMs} ms, retrieval ${input.latency.embedMs} + ${input.latency.searchMs} ms. Peer: ${input.peer}. ` +
      `${input.runs} measured runs per variant after ${input.warmup} warm-up rounds, concurrency 1, variants alternating run by run. ` +
      'Times in ms from the start of the run (ragtime: `rag.ask`; the peer: `graph.stream`), p50 / p95.',
    '',
    table(
      ['variant', 'runs', 'first token shown', 'full answer (settled)', 'first ÷ full', "writer's first token", 'first-token overhead (shown − writer)', 'mean display lag per token', 'writer done → settled', 'settled → final shown', 'screen updates', 'shown = record', 'CPU ms/run, mean (all processes)', 'CPU ms/run, mean: worker / Temporal server / bench (listener, model) / PostgreSQL / peer', '**ratio ÷ peer: first / full**'],
      rows,
    ),
  ].join('\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
