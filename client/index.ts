/**
 * The ragtime SDK: what an app imports to run questions through ragtime's workflows on Temporal
 * (`import { RagClient } from 'ragtime/client'`). Importing it reads no environment and opens nothing; a process
 * reads its configuration where it starts (`loadConfig(process.env)` from `ragtime/config`) and hands the client
 * what it needs.
 *
 * @example
 * import { RagClient, RagError } from 'ragtime/client';
 * import { loadConfig } from 'ragtime/config';
 *
 * const config = loadConfig(process.env);
 * const rag = await RagClient.connect({ address: config.temporal.address, namespace: config.temporal.namespace, codec: config.codec });
 * try {
 *   let outcome = await rag.ask('Aurora X2 路由器的保修期是多久？', { sessionId: 'user-42' });
 *   if (outcome.status === 'awaiting_input') outcome = await rag.answer(outcome.workflowId, 'Aurora X2');
 *   console.log(outcome.route, outcome.rag_trace?.retrieval_mode);
 * } catch (error) {
 *   if (error instanceof RagError && error.code === 'INVALID_INPUT') console.error(error.message);
 *   else throw error;
 * } finally {
 *   await rag.close();
 * }
 *
 * @packageDocumentation
 */

/**
 * The client apps use: `connect` (or `fromClient` around a Temporal client you hold), then `ask`, `start`,
 * `answer`, `getOutcome`, `getTrace`, `getProgress`, `close`.
 *
 * @example
 * const rag = await RagClient.connect({ address: '127.0.0.1:7233' });
 * const outcome = await rag.ask('怎么重置管理密码？', { sessionId: 'user-42' });
 */
export { RagClient, newRagWorkflowId, newSessionId, type AskOptions, type RagClientOptions } from './rag-client';

/**
 * The one error type the client throws; `code` is one of a closed set (`RagErrorCode`) and `terminal` says whether a
 * retry can help.
 *
 * @example
 * try { await rag.answer(id, '丹瑾'); } catch (e) { if (e instanceof RagError && e.code === 'NOT_AWAITING_INPUT') … }
 */
export { RagError, RagErrorCode } from '../core/errors';

/**
 * Refuses, with SERVICE_UNAVAILABLE, when no worker polls the task queue: call it before starting runs that would
 * otherwise wait for a worker in silence.
 *
 * @example
 * await assertWorkerPolling(rag, { address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'ragtime' });
 */
export { assertWorkerPolling } from './worker-check';

/**
 * The data converter of ragtime's clients and workers (payload encryption when a keyring is given), for apps that
 * build their own Temporal client and wrap it with `RagClient.fromClient`.
 *
 * @example
 * const client = new Client({ connection, dataConverter: ragtimeDataConverter(config.codec) });
 * const rag = RagClient.fromClient(client);
 */
export { ragtimeDataConverter } from './codec/data-converter';

/**
 * The shapes a client returns, defined once by the zod schemas of core/: a run's outcome (`RagOutcome`), its
 * normalized 59-field trace (`RagTrace`), a progress step (`RagStep`), the HITL settings of a run (`HitlSettings`),
 * and the payload keyring (`CodecKeyring`, from `loadConfig(env).codec`).
 *
 * @example
 * const outcome: RagOutcome = await rag.ask(question, { sessionId });
 */
export type { CodecKeyring } from '../core/codec-keys';
export type { RagStep } from '../core/progress/rag-step';
export type { RagTrace } from '../core/schemas/rag-trace';
export type { HitlSettings, RagOutcome } from '../core/schemas/run-io';
/** Speculative execution (issue 17 §2): `RagClientOptions.speculation`, `AskOptions.speculation`, `RagOutcome.speculation`. */
export type { SpeculationLevel, SpeculationRecord, SpeculationReport } from '../core/schemas/speculation';
/** What `RagClient.getRunRecord` returns: a run's retrievals (docs, meta, diagnostics), activities and duration. */
export type { RetrievalRecord, RunRecord } from './run-record';
/** What `RagClient.listRuns` takes and returns: runs from visibility, by their search attributes. */
export type { ListRunsFilter, RunRow } from './list-runs';
/** What `RagClient.cancelRun` takes and returns (issue 43 §6): the reason and wait, then what the cancellation did. */
export type { CancelRunOptions } from './cancel-run';
export type { ExecutionStatus, RunCancellation } from '../core/schemas/run-cancellation';
/**
 * What `RagClient.getRunDetail` returns (a run's outcome, trace, route path, retrievals with diagnostics, stage
 * times, grades and rounds), and what `compareRuns` makes of two of them: route and grade changes, evidence that
 * entered or left, rank movements per leg and timing differences.
 *
 * @example
 * const [before, after] = await Promise.all([rag.getRunDetail(a), rag.getRunDetail(b)]);
 * const diff: RunComparison = compareRuns(before, after);
 * if (diff.evidence.entered.length > 0) console.log('new evidence', diff.evidence.entered.map((ref) => ref.key));
 */
export { compareRuns } from '../core/compare/compare-runs';
export { routePathOf } from '../core/trace/route-path';
export type { RoutePath, RouteNode, RunDetail, RunGrade, RunRetrieval, Stage } from '../core/schemas/run-detail';
export type { RunComparison } from '../core/schemas/run-comparison';
