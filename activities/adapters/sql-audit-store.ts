import type { Selectable } from 'kysely';
import { describeZodError, RagError } from '../../core/errors';
import {
  AuditContent,
  RetrievalDetails,
  type AuditBatch,
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
};

type Detail = DiagnosisEvent['detail'];
type Run = SessionTrace['runs'][number];

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function invocationRow(record: ToolInvocationRecord, includeContent: boolean) {
  return {
    session_id: record.session_id,
    workflow_id: record.workflow_id,
    run_id: record.run_id,
    step: record.step,
    tool_name: record.tool_name,
    retrieval_layer: record.retrieval_layer,
    relevance_level: record.relevance_level,
    evidence_count: record.evidence_count,
    candidate_count: record.candidate_count,
    is_truncated: record.is_truncated ? 1 : 0,
    retrieval_details: JSON.stringify(record.retrieval_details),
    output_preview: record.output_preview,
    duration_ms: record.duration_ms,
    success: record.success ? 1 : 0,
    error_message: record.error_message,
    created_at: record.created_at,
    content_json: includeContent && record.content ? JSON.stringify(record.content) : null,
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

function toInvocation(row: Selectable<ToolInvocationTable>): SessionTrace['toolInvocations'][number] {
  const where = `tool_invocation ${row.workflow_id}/${row.run_id}/${row.step}`;
  return {
    workflowId: row.workflow_id,
    runId: row.run_id,
    step: row.step,
    toolName: row.tool_name,
    retrievalLayer: row.retrieval_layer,
    relevanceLevel: row.relevance_level,
    evidenceCount: Number(row.evidence_count),
    candidateCount: Number(row.candidate_count),
    truncated: Number(row.is_truncated) === 1,
    retrievalDetails: parseJson(`${where} retrieval_details`, row.retrieval_details, (v) => RetrievalDetails.safeParse(v)),
    retrievalDetailsRaw: row.retrieval_details,
    outputPreview: row.output_preview,
    durationMs: Number(row.duration_ms),
    success: Number(row.success) === 1,
    errorMessage: row.error_message,
    createdAt: row.created_at,
    content: row.content_json === null ? null : parseJson(`${where} content_json`, row.content_json, (v) => AuditContent.safeParse(v)),
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

// The events that say where a run stands: asked, answered (running again), completed, failed.
const STATUS_EVENTS: ReadonlySet<string> = new Set(['hitl_requested', 'answer_received', 'completed', 'failed']);

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
        const toolInvocations = invocationRows.map(toInvocation);
        const events = eventRows.map(toEvent);
        return { sessionId, runs: runsOf(toolInvocations, events), toolInvocations, events };
      }),

    close: () => db.destroy(),
  };
}
