import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { createAnswerStreamStore } from '../activities/adapters/sql-answer-stream';
import { createSessionOwnerStore } from '../activities/adapters/sql-session-owners';
import { createAuditStore } from '../activities/adapters/sql-audit-store';
import { RagClient } from '../client/rag-client';
import { hashToken } from '../server/http/token-auth';
import { createHttpServer } from '../server/http/create-http-server';
import { createTenantDirectory } from '../server/http/tenant-directory';
import { RunStarted } from '../server/http/api-schemas';
import { SpeculationLevel } from '../core/schemas/speculation';
import { REPO_ROOT } from '../runtime/repo-root';
import { parseArgs, positiveInt, temporalAddress, temporalSecurity } from './support/args';
import { latencyFromFlags } from './support/latency';
import { listeningPid, loadAverage, ownCpuMs, processCpuMs, sourceInfo } from './support/machine';
import { SIMPLE_QUESTION } from './support/scenarios';
import { ms, table } from './support/stats';
import { startStreamingLlmServer } from './support/streaming-llm-server';
import { preparePeer, startStreamingPeer } from './support/streaming-peer';
import type { StreamingWorkerConfig, StreamingWorkerReply } from './support/streaming-worker-process';

/*
 * The progress stream (GET /api/runs/{id}/progress, server-sent events) followed to its end, ragtime's API server in
 * this process on the single-machine default (the side channel, owners and audit in one SQLite file, its push over
 * the local socket), beside the LangGraph.js peer streaming the same answer (bench/streaming.ts's model and peer),
 * runs alternating. Two variants of the route (issue 47 §3): it asks the run (outcome, steps, answer generation:
 * queries through the worker) at every poll and wake, as before, or only when the run's history grew (a describe
 * first). Counts the route's queries and describes per run, and CPU per run by process.
 *
 *   npx tsx bench/sse-progress.ts [--runs 10] [--warmup 2] [--speculation answer] [--poll-ms 500]
 */

type Variant = { name: string; askOnChange: boolean } | { name: 'LangGraph.js peer'; peer: true };
type Run = { cpu: { worker: number; server: number; bench: number; peer: number }; queries: number; describes: number; events: number };

/** A RagClient whose queries and describes are counted (the route's questions to the run). */
function counted(rag: RagClient, counts: { queries: number; describes: number }, taskQueue: string, speculation: SpeculationLevel): RagClient {
  const workflow = new Proxy(rag.temporal.workflow, {
    get(target, property, receiver) {
      if (property !== 'getHandle') return Reflect.get(target, property, receiver) as unknown;
      return (...args: Parameters<Client['workflow']['getHandle']>) => {
        const handle = target.getHandle(...args);
        return new Proxy(handle, {
          get(h, p, r) {
            const value = Reflect.get(h, p, r) as unknown;
            if (typeof value !== 'function') return value;
            if (p === 'describe') return (...a: unknown[]) => ((counts.describes += 1), (value as (...x: unknown[]) => unknown).apply(h, a));
            if (p === 'query') return (...a: unknown[]) => ((counts.queries += 1), (value as (...x: unknown[]) => unknown).apply(h, a));
            return (value as (...x: unknown[]) => unknown).bind(h);
          },
        });
      };
    },
  });
  const temporal = new Proxy(rag.temporal, { get: (target, property, receiver) => (property === 'workflow' ? workflow : (Reflect.get(target, property, receiver) as unknown)) });
  return RagClient.fromClient(temporal, taskQueue, { speculation });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      'poll-ms': { type: 'string', default: '500' },
      speculation: { type: 'string', default: 'answer' },
      'llm-ms': { type: 'string', default: '400' },
      'embed-ms': { type: 'string', default: '20' },
      'search-ms': { type: 'string', default: '20' },
      jitter: { type: 'string', default: '0.2' },
      seed: { type: 'string', default: '1' },
    },
    strict: true,
  });
  const runs = positiveInt('runs', values.runs);
  const warmup = positiveInt('warmup', values.warmup);
  const pollMs = positiveInt('poll-ms', values['poll-ms']);
  const speculation = SpeculationLevel.parse(values.speculation);
  const latency = latencyFromFlags(values);
  const command = `npx tsx bench/sse-progress.ts ${process.argv.slice(2).join(' ')}`.trimEnd();
  const loadBefore = loadAverage();
  console.log(`# bench/sse-progress — ${new Date().toISOString()}\ncommand: ${command}\nload at start: ${loadBefore}`);

  const model = await startStreamingLlmServer({ llmMs: latency.llmMs, tokenMs: 20, tokens: 120, jitter: latency.jitter, seed: latency.seed });
  const work = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-sse-'));
  const address = temporalAddress();
  const taskQueue = `bench-sse-${process.pid}`;
  const sqliteFile = path.join(work, 'audit.sqlite');
  const config: StreamingWorkerConfig = { address, taskQueue, baseUrl: model.baseUrl, apiKey: 'bench-key', sqliteFile, latency };
  const worker = fork(require.resolve('./support/streaming-worker-process'), [JSON.stringify(config)], { execArgv: [...process.execArgv, '--require', require.resolve('tsx/cjs')], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<StreamingWorkerReply>((resolve) => worker.once('message', resolve));
  if (ready.type !== 'ready') throw new Error(`the ragtime worker failed: ${ready.message}`);
  const peerFlags = ['--base-url', model.baseUrl, '--llm-ms', String(latency.llmMs), '--embed-ms', String(latency.embedMs), '--search-ms', String(latency.searchMs), '--jitter', String(latency.jitter)];
  const peer = await startStreamingPeer(preparePeer(path.join(REPO_ROOT, 'bench', 'peers', 'langgraph-streaming')), peerFlags);
  const rag = await RagClient.connect({ address, taskQueue, connection: temporalSecurity(), speculation });
  const counts = { queries: 0, describes: 0 };
  const location = { sqliteFile };
  const answerStream = createAnswerStreamStore(location);
  const owners = createSessionOwnerStore(location);
  const auditStore = createAuditStore({ ...location, includeContent: false });
  const tenants = createTenantDirectory({ tokens: [{ tenant: 'bench', sha256: hashToken('bench-token') }], owners, defaultKb: 'bench' });
  const apps = [false, true].map((askOnChange) =>
    createHttpServer({ rag: counted(rag, counts, taskQueue, speculation), auditStore, tenants, answerStream, limits: { bodyLimitBytes: 64 * 1024, progressPollMs: pollMs, heartbeatMs: 15_000, progressAskOnChange: askOnChange } }),
  );
  const variants: Variant[] = [
    { name: `SSE, the run asked at every poll and wake (before), poll ${pollMs} ms`, askOnChange: false },
    { name: `SSE, the run asked when its history grew (after), poll ${pollMs} ms`, askOnChange: true },
    { name: 'LangGraph.js peer', peer: true },
  ];
  const serverPid = listeningPid(address);
  const cpuNow = () => ({ worker: processCpuMs(ready.pid) ?? 0, server: processCpuMs(serverPid) ?? 0, bench: ownCpuMs(), peer: processCpuMs(peer.pid) ?? 0 });
  const since = (before: Run['cpu']): Run['cpu'] => {
    const now = cpuNow();
    return { worker: now.worker - before.worker, server: now.server - before.server, bench: now.bench - before.bench, peer: now.peer - before.peer };
  };
  const headers = { authorization: 'Bearer bench-token' };

  async function sseRun(askOnChange: boolean, id: string): Promise<Run> {
    const app = apps[askOnChange ? 1 : 0] as (typeof apps)[number];
    const cpu = cpuNow();
    const asked = await app.inject({ method: 'POST', url: '/api/runs', headers, payload: { question: SIMPLE_QUESTION, sessionId: `bench-sse-${process.pid}-${id}`, wait: false } });
    const { workflowId } = RunStarted.parse(JSON.parse(asked.body));
    const before = { ...counts };
    const response = await app.inject({ method: 'GET', url: `/api/runs/${workflowId}/progress`, headers });
    const events = response.body.split('\n\n').filter((block) => block.startsWith('event: '));
    if (!events.at(-1)?.startsWith('event: outcome')) throw new Error(`run ${id}: the stream ended without its outcome: ${events.at(-1)}`);
    return { cpu: since(cpu), queries: counts.queries - before.queries, describes: counts.describes - before.describes, events: events.length };
  }

  const measured = new Map<Variant, Run[]>(variants.map((variant) => [variant, []]));
  let previous: Run | null = null;
  try {
    for (let round = 0; round < warmup + runs; round += 1) {
      for (let k = 0; k < variants.length; k += 1) {
        const variant = variants[(round + k) % variants.length] as Variant;
        let run: Run;
        if ('peer' in variant) {
          const cpu = cpuNow();
          await peer.run(`${round}-${k}`);
          run = { cpu: since(cpu), queries: 0, describes: 0, events: 0 };
          // What ragtime's worker and server spend during a peer run is the trail of the ragtime run before it.
          for (const part of ['worker', 'server'] as const) {
            if (!previous) break;
            previous.cpu[part] += run.cpu[part];
            run.cpu[part] = 0;
          }
        } else {
          run = await sseRun(variant.askOnChange, `${round}-${k}`);
          previous = run;
        }
        if (round >= warmup) measured.get(variant)?.push(run);
      }
      console.log(`round ${round + 1}/${warmup + runs}${round < warmup ? ' (warm-up)' : ''}, load ${loadAverage()}`);
    }
  } finally {
    await Promise.all(apps.map((app) => app.close()));
    await peer.stop();
    worker.send({ type: 'stop' });
    await new Promise((resolve) => worker.once('exit', resolve));
    await Promise.allSettled([answerStream.close(), owners.close(), auditStore.close()]);
    await rag.close();
    await model.close();
    rmSync(work, { recursive: true, force: true });
  }
  const mean = (list: number[]) => list.reduce((sum, value) => sum + value, 0) / Math.max(1, list.length);
  const total = (run: Run) => run.cpu.worker + run.cpu.server + run.cpu.bench + run.cpu.peer;
  const peerCpu = mean((measured.get(variants[2] as Variant) ?? []).map(total));
  const rows = variants.map((variant) => {
    const list = measured.get(variant) ?? [];
    const cpu = mean(list.map(total));
    return [
      variant.name,
      String(list.length),
      ms(mean(list.map((run) => run.queries))),
      ms(mean(list.map((run) => run.describes))),
      ms(cpu),
      (['worker', 'server', 'bench', 'peer'] as const).map((part) => ms(mean(list.map((run) => run.cpu[part])))).join(' / '),
      'peer' in variant ? '—' : `**${(cpu / peerCpu).toFixed(2)}**`,
    ];
  });
  console.log(
    [
      '',
      `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (${sourceInfo()}): \`${command}\`; ${os.cpus().length} vCPUs, shared; load ${loadBefore} → ${loadAverage()}; speculation ${speculation}, llm ${latency.llmMs} ms, 120 answer tokens 20 ms apart; ${runs} runs per variant after ${warmup} warm-up rounds, alternating. CPU ms per run, means.`,
      '',
      table(['variant', 'runs', "the route's queries per run", 'describes per run', 'CPU ms/run (all processes)', 'worker / Temporal server / bench (API server, model) / peer', '**CPU ÷ peer**'], rows),
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
