import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { createAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { createSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import { temporalSecurity } from './args';
import type { LatencyModel } from './latency';
import { benchAdapters } from './scenarios';

/*
 * The ragtime worker of bench/streaming.ts, in a process of its own (forked by the benchmark with tsx's loader): every
 * workflow and the real activity code; the models are the real OpenAI adapter (the ladder, `stream: true` for the
 * answer writer) against the benchmark's loopback model (support/streaming-llm-server.ts); retrieval is the bench
 * retriever (sleeps embed + search, two leaves); the answer stream, the audit rows and the session turns go to one
 * SQLite file (the audit database of a one-machine deployment, as workers/build-adapters.ts opens it), which the
 * benchmark reads the stream from. Answers the parent over IPC: ready, stop.
 */

export type StreamingWorkerConfig = {
  address: string;
  taskQueue: string;
  baseUrl: string;
  apiKey: string;
  sqliteFile: string;
  /** The side channel (and audit) on PostgreSQL instead (bench/streaming.ts --database-url): it pushes. */
  databaseUrl?: string;
  latency: LatencyModel;
};

export type StreamingWorkerReply = { type: 'ready'; pid: number } | { type: 'failed'; message: string };

const send = (reply: StreamingWorkerReply): void => {
  process.send?.(reply);
};

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as StreamingWorkerConfig;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const location = { sqliteFile: config.sqliteFile, databaseUrl: config.databaseUrl };
  const answerStream = createAnswerStreamStore(location);
  const audit = createAuditStore({ ...location, includeContent: false });
  const turns = createSessionTurnStore(location);
  // Migrated before the first run, so that no run pays for it.
  await answerStream.migrate();
  await audit.migrate();
  await turns.migrate();
  const models = createOpenAiChatModels({ apiKey: config.apiKey, baseUrl: config.baseUrl, fastModel: 'bench-fast', gradeModel: 'bench-grade', answerModel: 'bench-answer' });
  const connection = await NativeConnection.connect({ ...temporalSecurity(), address: config.address });
  const worker = await Worker.create({
    connection,
    taskQueue: config.taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: createActivities({ models, retriever: benchAdapters(config.latency).retriever, answerStream, audit, turns }),
  });
  const running = worker.run();
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.on('message', (request: { type: string }) => {
    if (request.type === 'stop') stop();
  });
  // The benchmark went away (finished, failed or was interrupted): do not linger as an orphan worker.
  process.on('disconnect', stop);
  send({ type: 'ready', pid: process.pid });
  try {
    await running;
  } finally {
    await connection.close();
    await Promise.allSettled([answerStream.close(), audit.close(), turns.close()]);
  }
  process.disconnect?.();
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
  process.disconnect?.();
});
