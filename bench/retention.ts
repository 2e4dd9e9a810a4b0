import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import Database from 'better-sqlite3';
import { createActivities } from '../activities';
import { createOpenAiChatModels } from '../activities/adapters/openai-chat-models';
import { createAnswerStreamStore } from '../activities/adapters/sql-answer-stream';
import { createAuditStore } from '../activities/adapters/sql-audit-store';
import { createSessionTurnStore } from '../activities/adapters/sql-session-turns';
import { housekeepingActivities } from '../activities/housekeeping-activities';
import { RagClient } from '../client/rag-client';
import { connectTemporal } from '../client/temporal-connection';
import { ANSWER_STREAM_KEEP_MINUTES } from '../core/housekeeping/housekeeping-io';
import { parseArgs, positiveInt, temporalAddress, temporalSecurity } from './support/args';
import { ZERO_LATENCY } from './support/latency';
import { loadAverage, sourceInfo } from './support/machine';
import { SIMPLE_QUESTION, benchAdapters } from './support/scenarios';
import { startStreamingLlmServer } from './support/streaming-llm-server';

/*
 * What ragtime keeps per run, and whether the answer stream stays flat (issue 35 §1). Runs the fast scenario --runs
 * times through a worker in this process (the real activity code; the OpenAI adapter streaming the answer from the
 * bench's loopback model, --tokens tokens; the answer stream, audit rows and session turns in one SQLite file, as a
 * one-machine deployment keeps them), each run in a session of its own. Every --every runs a housekeeping pass runs as
 * the schedule would 10 minutes later (its clock moved on by the answer stream's keep time, so each run settled
 * before it has gone quiet). Prints the rows of each table after each pass, beside what they would be without
 * housekeeping, and the bytes per run each store keeps (SQLite's dbstat: table and index pages), and Temporal's
 * history bytes per run (historySizeBytes).
 *
 *   npx tsx bench/retention.ts [--runs 1000] [--every 100] [--concurrency 4] [--tokens 120]
 */

const HELP = `usage: npx tsx bench/retention.ts [--runs 1000] [--every 100] [--concurrency 4] [--tokens 120]
env: TEMPORAL_ADDRESS (default 127.0.0.1:7233)`;

const TABLES = ['answer_stream_event', 'tool_invocation', 'diagnosis_event', 'session_turn'] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string' }, every: { type: 'string' }, concurrency: { type: 'string' }, tokens: { type: 'string' }, help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const runs = positiveInt('runs', values.runs, 1000);
  const every = Math.max(1, positiveInt('every', values.every, 100));
  const concurrency = Math.max(1, positiveInt('concurrency', values.concurrency, 4));
  const tokens = Math.max(1, positiveInt('tokens', values.tokens, 120));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-retention-'));
  const sqliteFile = path.join(dir, 'audit.sqlite');
  const location = { sqliteFile };
  const stores = { audit: createAuditStore({ ...location, includeContent: false }), turns: createSessionTurnStore(location), answerStream: createAnswerStreamStore(location) };
  await stores.audit.migrate();
  await stores.turns.migrate();
  await stores.answerStream.migrate();
  const llm = await startStreamingLlmServer({ llmMs: 0, tokenMs: 2, tokens, jitter: 0, seed: 1 });
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const address = temporalAddress();
  const nativeConnection = await NativeConnection.connect({ ...temporalSecurity(), address });
  const connection = await connectTemporal({ ...temporalSecurity(), address });
  const taskQueue = `bench-retention-${process.pid}`;
  const models = createOpenAiChatModels({ apiKey: 'bench', baseUrl: llm.baseUrl, fastModel: 'bench-fast', gradeModel: 'bench-grade', answerModel: 'bench-answer' });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({ models, retriever: benchAdapters(ZERO_LATENCY).retriever, ...stores }),
  });
  const rag = RagClient.fromClient(new Client({ connection }), taskQueue);
  const sqlite = new Database(sqliteFile, { readonly: true });
  const rows = (table: string) => (sqlite.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  // Table and index pages of each table (SQLite's dbstat), in bytes.
  const bytesOf = (table: string) =>
    (sqlite.prepare(`SELECT COALESCE(SUM(pgsize), 0) AS b FROM dbstat WHERE name = ? OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?)`).get(table, table) as { b: number }).b;
  let deletedSoFar = 0;
  const passes: string[] = [];
  const historyBytes: number[] = [];
  let bytesPerRun: string[] = [];
  const started = Date.now();
  await worker.runUntil(async () => {
    let next = 0;
    for (let done = 0; done < runs; done += every) {
      const target = Math.min(runs, done + every);
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < target) {
            const i = next++;
            const outcome = await rag.ask(SIMPLE_QUESTION, { sessionId: `retention-${process.pid}-${i}` });
            if (outcome.route !== 'answer' || !outcome.answer) throw new Error(`run ${i} ended ${outcome.status}/${outcome.route}`);
            if (i % 50 === 0) historyBytes.push(Number((await rag.temporal.workflow.getHandle(outcome.workflowId).describe()).raw.workflowExecutionInfo?.historySizeBytes ?? 0));
          }
        }),
      );
      if (target === every) bytesPerRun = TABLES.map((table) => `${table} ${Math.round(bytesOf(table) / every)} B`);
      const pass = await housekeepingActivities(stores, () => Date.now() + ANSWER_STREAM_KEEP_MINUTES * 60_000).pruneStores({ retentionDays: null });
      deletedSoFar += pass.answerStreamEvents;
      const streamRows = rows('answer_stream_event');
      passes.push(`| ${target} | ${streamRows} | ${streamRows + deletedSoFar} | ${pass.answerStreamEvents} | ${rows('tool_invocation')} | ${rows('diagnosis_event')} | ${rows('session_turn')} |`);
    }
  });
  const seconds = (Date.now() - started) / 1000;
  sqlite.close();
  await Promise.allSettled([stores.audit.close(), stores.turns.close(), stores.answerStream.close()]);
  await nativeConnection.close();
  await connection.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
  const meanHistory = historyBytes.reduce((sum, b) => sum + b, 0) / Math.max(1, historyBytes.length);
  console.log(`# bench/retention.ts: ${runs} runs (fast scenario, ${tokens}-token streamed answers, concurrency ${concurrency}), a housekeeping pass every ${every} runs; ${seconds.toFixed(0)} s; load ${loadAverage()}; ${sourceInfo()}`);
  console.log('\n| runs so far | answer_stream_event rows after the pass | rows without housekeeping | deleted by the pass | tool_invocation | diagnosis_event | session_turn |');
  console.log('|---|---|---|---|---|---|---|');
  for (const line of passes) console.log(line);
  console.log(`\nbytes per run kept (SQLite pages of the table and its indexes after the first ${every} runs, before the first pass): ${bytesPerRun.join(', ')}`);
  console.log(`Temporal history per run: ${Math.round(meanHistory)} B (historySizeBytes, mean of ${historyBytes.length} runs)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
