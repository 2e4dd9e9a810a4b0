import type { MetadataFiltersInput } from '../core/retrieval/metadata-filter';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  Client,
  type Connection,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  type ClientInterceptors,
  type ConnectionOptions,
} from '@temporalio/client';
import type { CodecKeyring } from '../core/codec-keys';
import { connectTemporal } from './temporal-connection';
import { RagError, describeZodError } from '../core/errors';
import type { RagStep } from '../core/progress/rag-step';
import { SUB_QUESTION_QUEUED_ICON } from '../core/progress/step-messages';
import type { RagTrace } from '../core/schemas/rag-trace';
import type { RunDetail } from '../core/schemas/run-detail';
import { HitlAnswer, RagWorkflowInput, type HitlSettings, type RagOutcome } from '../core/schemas/run-io';
import type { SpeculationLevel } from '../core/schemas/speculation';
import {
  TASK_QUEUE,
  answerStreamQuery,
  awaitOutcomeUpdate,
  type AnswerStreamState,
  outcomeQuery,
  progressQuery,
  subQuestionWorkflowId,
  submitHitlAnswerUpdate,
  traceQuery,
} from '../workflows/messages';
import type { ragWorkflow } from '../workflows/rag-workflow';
import { RAG_KB, RAG_SESSION_ID, RAG_STATUS } from '../workflows/search-attributes';
import { ragtimeDataConverter } from './codec/data-converter';
import { explainWorkflowTaskFailure, toRagError } from './errors';
import { listRuns, type ListRunsFilter, type RunRow } from './list-runs';
import { runDetailOf, temporalUiUrlOf } from './run-detail';
import { readRunRecord, type RunRecord } from './run-record';
import { reattaching } from './reattach';
import { answerForOptions, mayNameAnOption } from '../core/run/option-answer';
import type { RunCancellation } from '../core/schemas/run-cancellation';
import { cancelRun, type CancelRunOptions } from './cancel-run';
import { outcomeAsClosed, outcomeOfClosedWait } from './closed-outcome';

export type RagClientOptions = {
  /** Temporal frontend, e.g. "127.0.0.1:7233". */
  address: string;
  namespace?: string;
  taskQueue?: string;
  /** TLS, API key, timeouts… passed to the Temporal connection as they are. */
  connection?: Omit<ConnectionOptions, 'address'>;
  /**
   * Payload encryption (docs/SECURITY.md): the keyring from `loadConfig(env).codec`, the same keys the workers
   * hold. Null or absent: plain payloads (a worker with keys still reads them, but its replies would be unreadable).
   */
  codec?: CodecKeyring | null;
  /** Client interceptors, e.g. OpenTelemetry's (`telemetryClientInterceptors()`, docs/OBSERVABILITY.md). */
  interceptors?: ClientInterceptors;
  /**
   * What the runs this client starts speculate (issue 17 §2; `loadConfig(env).speculation`, SPECULATION), unless an
   * `ask` says otherwise. Absent: off.
   */
  speculation?: SpeculationLevel;
};

export type AskOptions = {
  /**
   * The conversation the question belongs to: a follow-up is read with the session's earlier turns. Absent: a
   * conversation of its own (`newSessionId('sdk')`, issue 33 §2), named in the outcome's `sessionId`, so that a
   * question never joins a conversation it was not asked in; pass that id back to continue it.
   */
  sessionId?: string;
  /** Reuse an id to make `ask` idempotent: a second call returns the same run's outcome. Default: a new id. */
  workflowId?: string;
  hitl?: Partial<HitlSettings>;
  /** Continue from a snapshot another run left (spec §4.11), with the person's answer. */
  resumeFrom?: { snapshot: unknown; answer: string };
  /** The knowledge base to read (DESIGN §4b); default: the worker's (RAGTIME_KB). Shown in the memo and as RagKb. */
  kb?: string;
  /** Speculative execution for this run (off, retrieve, grade, answer); default: the client's. */
  speculation?: SpeculationLevel;
  /**
   * Metadata filters (issue 44 §2) every retrieval of the run applies inside the search: `{ product: 'a' }`, or
   * `{ product: ['a', 'b'] }` for one of; a malformed one is INVALID_INPUT before anything starts.
   */
  filters?: MetadataFiltersInput;
  /** The groups of the API token that asks (issue 44 §4): retrieval reads only the documents they may read. */
  access?: readonly string[];
  /**
   * Whose session it is (the HTTP API passes its tenant): a session's earlier turns are read and recorded under it
   * only (issue 25 §1). Default: '' — the runs of the CLI, the SDK and MCP over stdio.
   */
  tenant?: string;
};

const SUMMARY_LENGTH = 120;
const shorten = (text: string): string => ([...text].length > SUMMARY_LENGTH ? `${[...text].slice(0, SUMMARY_LENGTH - 1).join('')}…` : text);

/**
 * A new conversation's session id (issue 33 §2): `<surface>-` and 12 hex digits, e.g. `ask-1a2b3c4d5e6f`. Every
 * surface gives a question asked without a session one of these, so no question joins a conversation it was not
 * asked in; continuing one is explicit (pass the id back).
 *
 * @example
 * const outcome = await rag.ask('Aurora X2 的保修期是多久？', { sessionId: newSessionId('app') });
 */
export function newSessionId(surface: string): string {
  return `${surface}-${randomBytes(6).toString('hex')}`;
}

/** A new workflow id for a session's run: readable in the UI, unique per run. */
export function newRagWorkflowId(sessionId: string): string {
  return `rag-${sessionId}-${randomUUID().slice(0, 8)}`;
}

/**
 * What apps use to run ragtime: ask a question, answer a clarification, read outcome, trace and progress.
 *
 * @example
 * const config = loadConfig(process.env); // runtime/load-config.ts (ragtime/config)
 * const rag = await RagClient.connect({ address: config.temporal.address, codec: config.codec });
 * let outcome = await rag.ask('丹瑾是什么属性？'); // a conversation of its own: outcome.sessionId names it
 * if (outcome.status === 'awaiting_input') outcome = await rag.answer(outcome.workflowId, '丹瑾');
 * const next = await rag.ask('她的专属武器呢？', { sessionId: outcome.sessionId }); // a follow-up in it
 * console.log(outcome.route, outcome.rag_trace);
 */
export class RagClient {
  private constructor(
    readonly temporal: Client,
    private readonly taskQueue: string,
    private readonly ownedConnection: Connection | null,
    private readonly speculation?: SpeculationLevel,
  ) {}

  static async connect(options: RagClientOptions): Promise<RagClient> {
    const connection = await connectTemporal({ ...options.connection, address: options.address }).catch((error: unknown) => {
      throw new RagError('SERVICE_UNAVAILABLE', `cannot reach Temporal at ${options.address}: ${(error as Error).message}; start it with \`make up\``, { cause: error });
    });
    const temporal = new Client({
      connection,
      namespace: options.namespace ?? 'default',
      dataConverter: ragtimeDataConverter(options.codec ?? null),
      interceptors: options.interceptors,
    });
    return new RagClient(temporal, options.taskQueue ?? TASK_QUEUE, connection, options.speculation);
  }

  /**
   * Wraps an existing Temporal client (tests, apps that already hold one). Give that client the ragtime data
   * converter (`ragtimeDataConverter(config.codec)`) when the workers encrypt payloads.
   */
  static fromClient(temporal: Client, taskQueue: string = TASK_QUEUE, defaults: { speculation?: SpeculationLevel } = {}): RagClient {
    return new RagClient(temporal, taskQueue, null, defaults.speculation);
  }

  /**
   * Starts a run and returns its first outcome — completed, awaiting input or failed — in one round trip
   * (update-with-start). Bad input is refused before anything starts.
   */
  async ask(question: string | undefined, options: AskOptions = {}): Promise<RagOutcome> {
    const { workflowId, startOptions } = this.prepareStart(question, options);
    // One update id for every attempt: a call repeated after the server came back joins the same update.
    const updateId = randomUUID();
    const attempt = () =>
      this.temporal.workflow.executeUpdateWithStart(awaitOutcomeUpdate, {
        updateId,
        startWorkflowOperation: new WithStartWorkflowOperation<typeof ragWorkflow>('ragWorkflow', startOptions),
      });
    try {
      return await reattaching(attempt, { workflowId });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return this.getOutcome(workflowId);
      // Cancelled or terminated while `ask` waited: its outcome says so (issue 43 §6).
      const closed = await outcomeOfClosedWait(this.temporal, workflowId, error);
      if (closed) return closed;
      // A worker that cannot decrypt the input fails the workflow task; the server then refuses the update.
      throw (await explainWorkflowTaskFailure(this.temporal, workflowId, error)) ?? toRagError(error, workflowId);
    }
  }

  /**
   * Starts a run and returns at once, without its outcome: for callers that follow it live (`getProgress`, the HTTP
   * API's progress stream) and read the outcome later. Bad input is refused before anything starts; with a
   * `workflowId` that already ran or runs, that run is returned (no second start).
   */
  async start(question: string | undefined, options: AskOptions = {}): Promise<{ workflowId: string; runId: string; sessionId: string }> {
    const { workflowId, sessionId, startOptions } = this.prepareStart(question, options);
    try {
      const handle = await this.temporal.workflow.start<typeof ragWorkflow>('ragWorkflow', startOptions);
      return { workflowId, runId: handle.firstExecutionRunId, sessionId };
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        const outcome = await this.getOutcome(workflowId);
        return { workflowId, runId: outcome.runId, sessionId: outcome.sessionId };
      }
      throw toRagError(error, workflowId);
    }
  }

  /** The ids of a run that has started, read from the server alone (no worker needed, unlike `getOutcome`). */
  async startedRun(workflowId: string): Promise<{ workflowId: string; runId: string }> {
    try {
      const description = await this.temporal.workflow.getHandle(workflowId).describe();
      return { workflowId, runId: description.runId };
    } catch (error) {
      throw toRagError(error, workflowId);
    }
  }

  private prepareStart(question: string | undefined, options: AskOptions) {
    const speculation = options.speculation ?? this.speculation;
    const parsed = RagWorkflowInput.safeParse({
      question,
      sessionId: options.sessionId ?? newSessionId('sdk'),
      hitl: options.hitl,
      resumeFrom: options.resumeFrom,
      kb: options.kb,
      ...(options.filters === undefined ? {} : { filters: options.filters }),
      ...(options.access === undefined ? {} : { access: options.access }),
      ...(options.tenant ? { tenant: options.tenant } : {}),
      // Left out when off, so that a run that does not speculate starts with the input it always had.
      ...(speculation && speculation !== 'off' ? { speculation } : {}),
    });
    if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError('invalid question', parsed.error));
    const input = parsed.data;
    const workflowId = options.workflowId ?? newRagWorkflowId(input.sessionId);
    const summary = input.question ?? `resume: ${options.resumeFrom?.answer ?? ''}`;
    const startOptions = {
      workflowId,
      taskQueue: this.taskQueue,
      args: [input] as [RagWorkflowInput],
      // A running run with this id is joined (USE_EXISTING); a finished one is not started again (REJECT_DUPLICATE),
      // its outcome is read instead — so a retried `ask` never runs the graph twice.
      workflowIdConflictPolicy: 'USE_EXISTING' as const,
      workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
      staticSummary: shorten(summary),
      typedSearchAttributes: [
        { key: RAG_SESSION_ID, value: input.sessionId },
        { key: RAG_STATUS, value: 'running' },
        ...(input.kb === undefined ? [] : [{ key: RAG_KB, value: input.kb }]),
      ],
      memo: { sessionId: input.sessionId, question: shorten(summary), ...(input.kb === undefined ? {} : { kb: input.kb }) },
    };
    return { workflowId, sessionId: input.sessionId, startOptions };
  }

  /**
   * Sends the person's answer to a waiting run and returns its next outcome (completed, or asking again). A number
   * that names one of the run's options (scope_select) sends that option; one that names none is refused
   * (INVALID_INPUT, listing them) and nothing is sent.
   */
  async answer(workflowId: string, text: string): Promise<RagOutcome> {
    const parsed = HitlAnswer.safeParse(text);
    if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError('invalid answer', parsed.error));
    // A number may name one of the options the run offers: the option is sent, or the number is refused.
    const answer = mayNameAnOption(text) ? answerForOptions(text, (await this.getOutcome(workflowId)).hitl?.options ?? []) : text;
    // The same update id on every attempt: the server applies the answer once, however often it is sent.
    const updateId = randomUUID();
    try {
      return await reattaching(() => this.temporal.workflow.getHandle(workflowId).executeUpdate(submitHitlAnswerUpdate, { args: [answer], updateId }), { workflowId });
    } catch (error) {
      // Cancelled while the answer was being worked on: its outcome says so (issue 43 §6).
      const closed = await outcomeOfClosedWait(this.temporal, workflowId, error, { cancelledOnly: true });
      if (closed) return closed;
      throw (await explainWorkflowTaskFailure(this.temporal, workflowId, error)) ?? toRagError(error, workflowId);
    }
  }

  /**
   * Asks a run to stop (Temporal cancellation): the run records a `cancelled` audit event and ends CANCELLED. Safe to
   * repeat; a run that has already closed is left as it is (resolves false).
   *
   * @example
   * const { workflowId } = await rag.start(question, { sessionId });
   * await rag.cancel(workflowId); // the person walked away
   */
  async cancel(workflowId: string, options: { reason?: string } = {}): Promise<boolean> {
    return (await this.cancelRun(workflowId, options)).cancelled;
  }

  /**
   * `cancel`, saying what it did (issue 43 §6): whether this request cancelled the run, its status after waiting up
   * to `waitMs` for it to close (`cancelled`, or still `running` when no worker processed the request in time), the
   * reason, and its sub-question children's status. An unknown run is UNKNOWN_RUN.
   *
   * @example
   * const done = await rag.cancelRun(workflowId, { reason: 'asked twice', waitMs: 10_000 });
   * if (!done.cancelled) console.log(`it had already ended: ${done.status}`);
   */
  async cancelRun(workflowId: string, options: CancelRunOptions = {}): Promise<RunCancellation> {
    return cancelRun(this.temporal, workflowId, options);
  }

  /**
   * The run's outcome as it stands (a running run reports status "running"). A run Temporal closed from outside —
   * cancelled, terminated, timed out — reports failed with that code and the reason Temporal has (issue 43 §6),
   * not the "running" its last state would say; without a worker to query, that much is read from the server.
   */
  async getOutcome(workflowId: string): Promise<RagOutcome> {
    return outcomeAsClosed(this.temporal, workflowId, () =>
      this.query(workflowId, () => this.temporal.workflow.getHandle(workflowId).query(outcomeQuery), (outcome) => outcome),
    );
  }

  /** The run's normalized trace as it stands (spec §5.6). */
  async getTrace(workflowId: string): Promise<RagTrace | null> {
    return this.query(workflowId, () => this.temporal.workflow.getHandle(workflowId).query(traceQuery), (outcome) => outcome.rag_trace);
  }

  /**
   * The progress steps so far (spec §4.13). While sub-questions run, their children's live steps are merged in
   * after the parent's (the parent records them itself once they finish).
   */
  /** Which answer generation a streaming answer's listeners are shown, and its evidence (issue 25 §2). */
  async getAnswerStream(workflowId: string): Promise<AnswerStreamState> {
    return this.query(workflowId, () => this.temporal.workflow.getHandle(workflowId).query(answerStreamQuery));
  }

  async getProgress(workflowId: string): Promise<RagStep[]> {
    const steps = await this.query(workflowId, () => this.temporal.workflow.getHandle(workflowId).query(progressQuery));
    const queued = steps.filter((step) => step.icon === SUB_QUESTION_QUEUED_ICON).length;
    const childrenReported = steps.some((step) => step.group !== undefined);
    if (queued === 0 || childrenReported) return steps;
    const children = await Promise.all(
      Array.from({ length: queued }, (_, i) =>
        this.temporal.workflow.getHandle(subQuestionWorkflowId(workflowId, i + 1)).query(progressQuery).catch(() => [] as RagStep[]),
      ),
    );
    return [...steps, ...children.flat()];
  }

  /**
   * A query, or, when it fails on a run that has completed, the run's result: a query of a closed run needs a worker
   * to replay its history (and can time out on a busy one), while the result of a completed run is the final
   * outcome itself.
   */
  private async query<T>(workflowId: string, call: () => Promise<T>, fromResult?: (outcome: RagOutcome) => T): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const completed = fromResult ? await this.completedOutcome(workflowId).catch(() => null) : null;
      if (completed && fromResult) return fromResult(completed);
      throw toRagError(error, workflowId);
    }
  }

  private async completedOutcome(workflowId: string): Promise<RagOutcome | null> {
    const handle = this.temporal.workflow.getHandle<typeof ragWorkflow>(workflowId);
    const description = await handle.describe();
    return description.status.name === 'COMPLETED' ? handle.result() : null;
  }

  /**
   * What the run's history records beyond its outcome: each retrieval with its docs, meta and diagnostics, the
   * activities it scheduled and how long it took (sub-question children included). For evaluations and tools.
   */
  async getRunRecord(workflowId: string): Promise<RunRecord> {
    try {
      return await readRunRecord(this.temporal, workflowId);
    } catch (error) {
      throw toRagError(error, workflowId);
    }
  }

  /**
   * Everything known about one run, for a console or a comparison (`compareRuns`): its outcome and normalized
   * trace, the route it took as nodes and edges, each retrieval with its diagnostics (legs, fusion, merge, rerank,
   * attempts), every activity's times for a waterfall, the grades and the clarification rounds. Read from the
   * run's history (sub-question children included) with this client's data converter, so encrypted runs read too.
   * Give `temporalUiBaseUrl` (e.g. "http://127.0.0.1:8233") to have the run's Temporal UI link filled in.
   *
   * @example
   * const detail = await rag.getRunDetail(outcome.workflowId, { temporalUiBaseUrl: 'http://127.0.0.1:8233' });
   * console.log(detail.path.nodes.map((node) => node.label).join(' → '));
   */
  async getRunDetail(workflowId: string, options: { temporalUiBaseUrl?: string } = {}): Promise<RunDetail> {
    const [outcome, record] = await Promise.all([this.getOutcome(workflowId), this.getRunRecord(workflowId)]);
    const uiUrl = options.temporalUiBaseUrl ? temporalUiUrlOf(options.temporalUiBaseUrl, this.temporal.options.namespace, workflowId) : null;
    return runDetailOf(outcome, record, uiUrl);
  }

  /**
   * Runs from Temporal visibility, newest first: by session, by status (running, awaiting_input, completed, failed),
   * at most `limit`. Read from search attributes only, so runs sealed with a key this process lacks still list;
   * runs Temporal closed from outside show as terminated, cancelled or timed_out.
   */
  async listRuns(filter: ListRunsFilter): Promise<RunRow[]> {
    return listRuns(this.temporal, filter).catch((error: unknown) => {
      throw new RagError('SERVICE_UNAVAILABLE', `listing runs from Temporal visibility failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
  }

  async close(): Promise<void> {
    await this.ownedConnection?.close();
  }
}
