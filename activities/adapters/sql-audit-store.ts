import type { Selectable } from 'kysely';
import { describeZodError, RagError } from '../../core/errors';
import {
  AuditContent,
  MCP_LAYER,
  McpToolDetails,
  RetrievalDetails,
  type AuditBatch,
  type McpToolCallRecord,
  type DiagnosisEvent,
  type SessionTrace,
  type ToolInvocationRecord,
} from '../../core/schemas/audit';
import type { AuditStore } from '../ports';
import { migrateAuditTables, type AuditDatabase, type DiagnosisEventTable, type ToolInvocationTable } from './sql/audit-schema';
import { lazyMigratedStore, openSqlDatabase, type SqlBackend, type SqlLocation } from './sql/database';

/*
 * The audit store of DESIGN §5 layer B on SQL: a SQLite file by default, PostgreSQL when a database URL is set.
 * Inserts ignore rows whose key exists (tool_invocation: workflow_id, run_id, step; diagnosis_event: workflow_id,
 * run_id, key), so activity retries, worker restarts and replays never duplicate one. Privacy by default: a row's
 * `content` (query text, evidence previews) is dropped unless the store was opened with includeContent.
 */

const STORE = 'audit store';
// Rows per INSERT: far below either backend's bound-parameter limit (18 columns × 200).
const INSERT_BATCH = 200;

export type AuditStoreOptions = SqlLocation & {
  /** AUDIT_INCLUDE_CONTENT: keep the query text and evidence previews of each row. */
  includeContent: boolean;
};

export type SqlAuditStore = AuditStore & {
  readonly backend: SqlBackend;
  readonly includeContent: boolean;
  /** Runs the migrations (also run lazily by the first operation); resolves to the names applied now. */
  migrate(): Promise<string[]>;
  /** An agent's MCP tool call (a tool_invocation row with retrieval_layer MCP); false when its step was recorded already. */
  recordMcpToolCall(record: McpToolCallRecord): Promise<boolean>;
  /** Erases the session's rows, its runs' and its agents' tool calls alike (issue 35 §2); returns the counts and runs. */
  eraseSession(sessionId: string): Promise<{ invocations: number; events: number; workflowIds: string[] }>;
  /** `ragtime tenant purge --dry-run` (issue 45 §2): how many rows these sessions have. */
  countSessions(sessionIds: readonly string[]): Promise<{ invocations: number; events: number }>;
  /** Retention (issue 35 §1): deletes the rows created before `cutoff` (ISO time); returns how many went. */
  pruneBefore(cutoff: string): Promise<{ invocations: number; events: number }>;
};

type Detail = DiagnosisEvent['detail'];
type Run = SessionTrace['runs'][number];

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The columns a run's row and an agent's MCP call row fill alike. */
type CommonRecord = Pick<
  ToolInvocationRecord,
  'session_id' | 'workflow_id' | 'run_id' | 'step' | 'relevance_level' | 'evidence_count' | 'candidate_count' | 'is_truncated' | 'output_preview' | 'duration_ms' | 'success' | 'created_at' | 'content'
> & { tool_name: string };

function commonRow(record: CommonRecord, includeContent: boolean) {
  return {
    session_id: record.session_id,
    workflow_id: record.workflow_id,
    run_id: record.run_id,
    step: record.step,
    tool_name: record.tool_name,
    relevance_level: record.relevance_level,
    evidence_count: record.evidence_count,
    candidate_count: record.candidate_count,
    is_truncated: record.is_truncated ? 1 : 0,
    output_preview: record.output_preview,
    duration_ms: record.duration_ms,
    success: record.success ? 1 : 0,
    created_at: record.created_at,
    content_json: includeContent && record.content ? JSON.stringify(record.content) : null,
  };
}

function invocationRow(record: ToolInvocationRecord, includeContent: boolean) {
  return {
    ...commonRow(record, includeContent),
    retrieval_layer: record.retrieval_layer,
    retrieval_details: JSON.stringify(record.retrieval_details),
    error_message: record.error_message,
  };
}

/** An agent's MCP tool call: retrieval_layer MCP_LAYER, its mcp_tool_v1 details, its error code as the error. */
function mcpToolCallRow(record: McpToolCallRecord, includeContent: boolean) {
  return {
    ...commonRow(record, includeContent),
    retrieval_layer: MCP_LAYER,
    retrieval_details: JSON.stringify(record.details),
    error_message: record.details.error_code,
  };
}

function eventRow(event: DiagnosisEvent) {
  return {
    session_id: event.session_id,
    workflow_id: event.workflow_id,
    run_id: event.run_id,
    key: event.key,
    event_type: event.event_type,
    detail_json: JSON.stringify(event.detail),
    created_at: event.created_at,
  };
}

/** A stored JSON column, checked against its schema: a row that no longer parses is an INTERNAL error naming it. */
function parseJson<T>(what: string, raw: string, parse: (value: unknown) => { success: true; data: T } | { success: false; error: Parameters<typeof describeZodError>[1] }): T {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new RagError('INTERNAL', `${what} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = parse(value);
  if (!parsed.success) throw new RagError('INTERNAL', describeZodError(what, parsed.error));
  return parsed.data;
}

/** The columns both kinds of row read alike, and the row's name for errors. */
function commonOf(row: Selectable<ToolInvocationTable>) {
  const where = `tool_invocation ${row.workflow_id}/${row.run_id}/${row.step}`;
  return {
    where,
    common: {
      workflowId: row.workflow_id,
      runId: row.run_id,
      step: row.step,
      toolName: row.tool_name,
      relevanceLevel: row.relevance_level,
      evidenceCount: Number(row.evidence_count),
      candidateCount: Number(row.candidate_count),
      truncated: Number(row.is_truncated) === 1,
      outputPreview: row.output_preview,
      durationMs: Number(row.duration_ms),
      success: Number(row.success) === 1,
      createdAt: row.created_at,
      content: row.content_json === null ? null : parseJson(`${where} content_json`, row.content_json, (v) => AuditContent.safeParse(v)),
    },
  };
}

function toInvocation(row: Selectable<ToolInvocationTable>): SessionTrace['toolInvocations'][number] {
  const { where, common } = commonOf(row);
  return {
    ...common,
    retrievalLayer: row.retrieval_layer,
    retrievalDetails: parseJson(`${where} retrieval_details`, row.retrieval_details, (v) => RetrievalDetails.safeParse(v)),
    retrievalDetailsRaw: row.retrieval_details,
    errorMessage: row.error_message,
  };
}

function toMcpToolCall(row: Selectable<ToolInvocationTable>): NonNullable<SessionTrace['agentToolCalls']>[number] {
  const { where, common } = commonOf(row);
  return {
    ...common,
    details: parseJson(`${where} retrieval_details`, row.retrieval_details, (v) => McpToolDetails.safeParse(v)),
    errorCode: row.error_message,
  };
}

function toEvent(row: Selectable<DiagnosisEventTable>): SessionTrace['events'][number] {
  return {
    workflowId: row.workflow_id,
    runId: row.run_id,
    key: row.key,
    eventType: row.event_type as DiagnosisEvent['event_type'],
    detail: JSON.parse(row.detail_json) as Detail,
    createdAt: row.created_at,
  };
}

// The events that say where a run stands: asked, answered (running again), completed, failed, cancelled.
const STATUS_EVENTS: ReadonlySet<string> = new Set(['hitl_requested', 'answer_received', 'completed', 'failed', 'cancelled']);

/**
 * The runs of a session: every (workflow id, run id) with a row or event; started at its run_started event; status and
 * route from its latest status event. Oldest first (runs without a start event last).
 */
function runsOf(invocations: SessionTrace['toolInvocations'], events: SessionTrace['events']): Run[] {
  const runs = new Map<string, Run>();
  const runOf = (workflowId: string, runId: string): Run => {
    const key = JSON.stringify([workflowId, runId]);
    let run = runs.get(key);
    if (!run) {
      run = { workflowId, runId, startedAt: null, status: null, route: null };
      runs.set(key, run);
    }
    return run;
  };
  for (const event of events) {
    const run = runOf(event.workflowId, event.runId);
    if (event.eventType === 'run_started') run.startedAt ??= event.createdAt;
    if (STATUS_EVENTS.has(event.eventType)) {
      // Events come oldest first, so the last one seen is the latest.
      run.status = typeof event.detail.status === 'string' ? event.detail.status : event.eventType;
      run.route = typeof event.detail.route === 'string' ? event.detail.route : null;
    }
  }
  for (const row of invocations) runOf(row.workflowId, row.runId);
  // Code-unit order, not locale order: ISO times and ids compare as the database compares them.
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const started = (run: Run) => run.startedAt ?? '\uffff';
  return [...runs.values()].sort(
    (a, b) => cmp(started(a), started(b)) || cmp(a.workflowId, b.workflowId) || cmp(a.runId, b.runId),
  );
}

/**
 * Opens the audit store. Nothing touches the database until the first operation (or `migrate()`), so a worker starts
 * while the database is down; recordAudit then fails and is retried (workflows/activity-options.ts AUDIT).
 */
export function createAuditStore(options: AuditStoreOptions): SqlAuditStore {
  const { includeContent } = options;
  const { db, backend, where } = openSqlDatabase<AuditDatabase>(options);
  const { migrate, ready } = lazyMigratedStore(STORE, where, () => migrateAuditTables(db, backend));

  return {
    backend,
    includeContent,
    migrate,

    record: (batch: AuditBatch) =>
      ready('record', () =>
        db.transaction().execute(async (trx) => {
          let invocations = 0;
          let events = 0;
          for (const rows of batches(batch.invocations.map((record) => invocationRow(record, includeContent)), INSERT_BATCH)) {
            const result = await trx
              .insertInto('tool_invocation')
              .values(rows)
              .onConflict((oc) => oc.columns(['workflow_id', 'run_id', 'step']).doNothing())
              .executeTakeFirst();
            invocations += Number(result.numInsertedOrUpdatedRows ?? 0);
          }
          for (const rows of batches(batch.events.map(eventRow), INSERT_BATCH)) {
            const result = await trx
              .insertInto('diagnosis_event')
              .values(rows)
              .onConflict((oc) => oc.columns(['workflow_id', 'run_id', 'key']).doNothing())
              .executeTakeFirst();
            events += Number(result.numInsertedOrUpdatedRows ?? 0);
          }
          return { invocations, events };
        }),
      ),

    recordMcpToolCall: (record) =>
      ready('recordMcpToolCall', async () => {
        const result = await db
          .insertInto('tool_invocation')
          .values(mcpToolCallRow(record, includeContent))
          .onConflict((oc) => oc.columns(['workflow_id', 'run_id', 'step']).doNothing())
          .executeTakeFirst();
        return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
      }),

    sessionTrace: (sessionId, traceOptions = {}) =>
      ready('sessionTrace', async () => {
        const { runId } = traceOptions;
        const invocationRows = await db
          .selectFrom('tool_invocation')
          .selectAll()
          .where('session_id', '=', sessionId)
          .$if(runId !== undefined, (qb) => qb.where('run_id', '=', runId as string))
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        const eventRows = await db
          .selectFrom('diagnosis_event')
          .selectAll()
          .where('session_id', '=', sessionId)
          .$if(runId !== undefined, (qb) => qb.where('run_id', '=', runId as string))
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        // Agents' MCP tool calls share the table (seed 004 §4.2) but not the rag_lookup_v1 shape: listed apart.
        const toolInvocations = invocationRows.filter((row) => row.retrieval_layer !== MCP_LAYER).map(toInvocation);
        const agentToolCalls = invocationRows.filter((row) => row.retrieval_layer === MCP_LAYER).map(toMcpToolCall);
        const events = eventRows.map(toEvent);
        // Absent when there are none: a session without agents reads exactly as before the MCP server existed.
        return { sessionId, runs: runsOf(toolInvocations, events), toolInvocations, events, ...(agentToolCalls.length > 0 ? { agentToolCalls } : {}) };
      }),

    eraseSession: (sessionId) =>
      ready('eraseSession', () =>
        db.transaction().execute(async (trx) => {
          const invocations = await trx.deleteFrom('tool_invocation').where('session_id', '=', sessionId).returning('workflow_id').execute();
          const events = await trx.deleteFrom('diagnosis_event').where('session_id', '=', sessionId).returning('workflow_id').execute();
          const workflowIds = [...new Set([...invocations, ...events].map((row) => row.workflow_id))];
          return { invocations: invocations.length, events: events.length, workflowIds };
        }),
      ),

    countSessions: (sessionIds) =>
      ready('countSessions', async () => {
        let invocations = 0;
        let events = 0;
        // A bounded IN list per statement (SQLite's and PostgreSQL's parameter limits).
        for (const ids of batches(sessionIds, 500)) {
          const rows = await db.selectFrom('tool_invocation').select((eb) => eb.fn.countAll().as('n')).where('session_id', 'in', ids).executeTakeFirstOrThrow();
          const eventRows = await db.selectFrom('diagnosis_event').select((eb) => eb.fn.countAll().as('n')).where('session_id', 'in', ids).executeTakeFirstOrThrow();
          invocations += Number(rows.n);
          events += Number(eventRows.n);
        }
        return { invocations, events };
      }),

    pruneBefore: (cutoff) =>
      ready('pruneBefore', async () => {
        const invocations = await db.deleteFrom('tool_invocation').where('created_at', '<', cutoff).executeTakeFirst();
        const events = await db.deleteFrom('diagnosis_event').where('created_at', '<', cutoff).executeTakeFirst();
        return { invocations: Number(invocations.numDeletedRows), events: Number(events.numDeletedRows) };
      }),

    close: () => db.destroy(),
  };
}
