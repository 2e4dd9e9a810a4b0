/**
 * The audit store (DESIGN §5 layer B, issue 6 §1) on both backends: a SQLite temp file, and PostgreSQL at
 * TEST_DATABASE_URL (started by `scripts/services.sh up postgres`, which `make test` does). Idempotent inserts, the
 * session trace's shape and order, the runId filter, and privacy by default, proven on the stored bytes.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createAuditStore, type SqlAuditStore } from '../../activities/adapters/sql-audit-store';
import { completedEvent, failedEvent, hitlRequestedEvent, runStartedEvent } from '../../core/audit/diagnosis-events';
import { buildToolInvocation, type AuditIds } from '../../core/audit/tool-invocation';
import { RagError } from '../../core/errors';
import { SessionTrace, type AuditBatch } from '../../core/schemas/audit';
import { chunk, metaM0 } from '../support/scenario';
import { assertReachable, services } from '../support/services';

// Same default as scripts/env.sh.
const TEST_DATABASE_URL = services.testDatabaseUrl;
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

/** Strings that appear nowhere but in a row's content: the query and the text of a chunk. */
const distinctive = () => ({
  query: `QUERY-ZQX-${randomUUID()}`,
  chunkText: `CHUNK-VWK-${randomUUID()} 机密段落`,
});

/** A run with one answered invocation, asked once then answered: 2 rows, 4 events. */
function runBatch(ids: AuditIds, at: number, secret = distinctive()): AuditBatch {
  const docs = [chunk(secret.chunkText, { chunk_id: `a.md::p0::l3::${at}`, filename: 'a.md' })];
  const grade = { route: 'answer' as const, retrievalStatus: 'answerable' as const, relevance: 'strong', answerability: 'sufficient', confidence: 0.9, keptCount: 1, gradedBy: 'scripted-model' };
  const invocation = (step: string, offset: number) =>
    buildToolInvocation(ids, {
      step, stage: step === 'initial' ? 'initial' : 'hitl_targeted', query: secret.query,
      retrieval: { docs, meta: metaM0(1) }, grade, startedAt: at + offset, endedAt: at + offset + 5, errorCode: null,
    });
  return {
    invocations: [invocation('initial', 1), invocation('hitl-1', 20)],
    events: [
      runStartedEvent(ids, at, { resumed: false, maxRounds: 3, answerTimeoutMs: 60_000 }),
      hitlRequestedEvent(ids, at + 10, { round: 1, route: 'clarify', retrievalStatus: 'needs_clarification', optionCount: 2 }),
      // Same time as the request: the insertion order breaks the tie.
      { ...hitlRequestedEvent(ids, at + 10, { round: 1, route: 'clarify', retrievalStatus: 'needs_clarification', optionCount: 2 }), key: 'answer_received:1', event_type: 'answer_received', detail: { status: 'running', round: 1, via: 'update' } },
      completedEvent(ids, at + 30, { route: 'answer', retrievalStatus: 'answerable', rounds: 1, awaitingPerson: false, evidenceCount: 1 }),
    ],
  };
}

type Backend = {
  name: string;
  prepare: () => Promise<void>;
  open: (includeContent: boolean) => SqlAuditStore;
  /** Every stored byte of the audit tables, as text. */
  storedText: () => Promise<string>;
  cleanup: () => void;
};

let sqliteDir = '';
const sqliteFile = () => join(sqliteDir, 'nested', 'audit.sqlite');

const backends: Backend[] = [
  {
    name: 'SQLite file',
    prepare: async () => {
      sqliteDir = mkdtempSync(join(tmpdir(), 'ragtime-audit-store-'));
    },
    open: (includeContent) => createAuditStore({ sqliteFile: sqliteFile(), includeContent }),
    // The database file and its WAL: everything SQLite wrote to disk.
    storedText: async () =>
      readdirSync(join(sqliteDir, 'nested'))
        .map((name) => readFileSync(join(sqliteDir, 'nested', name)).toString('latin1') + readFileSync(join(sqliteDir, 'nested', name)).toString('utf8'))
        .join('\n'),
    cleanup: () => rmSync(sqliteDir, { recursive: true, force: true }),
  },
  {
    name: 'PostgreSQL',
    prepare: () => assertReachable('PostgreSQL', new URL(TEST_DATABASE_URL).host),
    open: (includeContent) => createAuditStore({ databaseUrl: TEST_DATABASE_URL, sqliteFile: '/nonexistent/unused.db', includeContent }),
    storedText: async () => {
      const client = new Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        const rows = await client.query<{ row: string }>(
          'SELECT row_to_json(t)::text AS row FROM tool_invocation t UNION ALL SELECT row_to_json(e)::text FROM diagnosis_event e',
        );
        return rows.rows.map((r) => r.row).join('\n');
      } finally {
        await client.end();
      }
    },
    cleanup: () => undefined,
  },
];

describe.each(backends)('audit store on $name', (backend) => {
  let store: SqlAuditStore;
  // Each test uses its own session and workflow ids, so reruns against one PostgreSQL database never meet.
  const idsOf = (session: string, workflow = 'rag', run = 'run-1'): AuditIds => ({
    sessionId: session, workflowId: `${session}-${workflow}`, runId: `${session}-${run}`,
  });
  const newSession = () => `s-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    await backend.prepare();
    store = backend.open(false);
  });

  afterAll(async () => {
    await store?.close();
    backend.cleanup();
  });

  test('migrations run once, in their own bookkeeping tables', async () => {
    await store.migrate();
    const again = backend.open(false);
    try {
      expect(await again.migrate()).toEqual([]);
    } finally {
      await again.close();
    }
  });

  test('idempotent: the same batch recorded again (retry, restart, replay) adds nothing; new keys are added', async () => {
    const ids = idsOf(newSession());
    const batch = runBatch(ids, T0);
    expect(await store.record(batch)).toEqual({ invocations: 2, events: 4 });
    expect(await store.record(batch)).toEqual({ invocations: 0, events: 0 });
    // A batch with old and new rows: only the new ones count (a requeued batch sent with what came since).
    const failed = failedEvent(ids, T0 + 40, { errorType: 'INTERNAL', route: null });
    expect(await store.record({ invocations: batch.invocations, events: [...batch.events, failed] })).toEqual({ invocations: 0, events: 1 });
    // A key repeated within one batch is inserted once.
    const other = idsOf(newSession());
    const twice = runBatch(other, T0);
    expect(await store.record({ invocations: [...twice.invocations, ...twice.invocations], events: [] })).toEqual({ invocations: 2, events: 0 });
    const trace = await store.sessionTrace(ids.sessionId);
    expect(trace.toolInvocations).toHaveLength(2);
    expect(trace.events).toHaveLength(5);
    expect(await store.record({ invocations: [], events: [] })).toEqual({ invocations: 0, events: 0 });
  });

  test('sessionTrace: runs, rows with parsed and raw details, events, oldest first; the runId filter', async () => {
    const session = newSession();
    const first = idsOf(session, 'rag-a', 'run-a');
    const second = idsOf(session, 'rag-b', 'run-b');
    // Recorded out of order: the later run first.
    await store.record(runBatch(second, T0 + 60_000));
    await store.record(runBatch(first, T0));
    await store.record({ invocations: [], events: [failedEvent(second, T0 + 90_000, { errorType: 'MODEL_OUTPUT_INVALID', route: null })] });

    const trace = await store.sessionTrace(session);
    expect(SessionTrace.safeParse(trace).success).toBe(true);
    expect(trace.sessionId).toBe(session);
    expect(trace.runs).toEqual([
      { workflowId: first.workflowId, runId: first.runId, startedAt: '2026-11-30T09:00:00.000Z', status: 'completed', route: 'answer' },
      { workflowId: second.workflowId, runId: second.runId, startedAt: '2026-11-30T09:01:00.000Z', status: 'failed', route: null },
    ]);
    expect(trace.toolInvocations.map((row) => [row.runId, row.step])).toEqual([
      [first.runId, 'initial'], [first.runId, 'hitl-1'], [second.runId, 'initial'], [second.runId, 'hitl-1'],
    ]);
    expect(trace.events.map((event) => [event.runId, event.key])).toEqual([
      [first.runId, 'run_started'], [first.runId, 'hitl_requested:1'], [first.runId, 'answer_received:1'], [first.runId, 'completed'],
      [second.runId, 'run_started'], [second.runId, 'hitl_requested:1'], [second.runId, 'answer_received:1'], [second.runId, 'completed'],
      [second.runId, 'failed'],
    ]);

    const row = trace.toolInvocations[0];
    expect(row).toMatchObject({
      workflowId: first.workflowId, toolName: 'search_knowledge_base', retrievalLayer: 'L3', relevanceLevel: 'strong',
      evidenceCount: 1, candidateCount: 1, truncated: false, durationMs: 5, success: true, errorMessage: null,
      createdAt: '2026-11-30T09:00:00.006Z', content: null,
    });
    expect(row?.retrievalDetails).toMatchObject({ audit_schema: 'rag_lookup_v1', stage: 'initial', evidence_status: 'EVIDENCE_FOUND', sources: ['a.md'] });
    expect(JSON.parse(row?.retrievalDetailsRaw ?? '')).toEqual(row?.retrievalDetails);
    expect(trace.events[1]).toEqual({
      workflowId: first.workflowId, runId: first.runId, key: 'hitl_requested:1', eventType: 'hitl_requested',
      detail: { status: 'awaiting_input', round: 1, route: 'clarify', retrieval_status: 'needs_clarification', option_count: 2 },
      createdAt: '2026-11-30T09:00:00.010Z',
    });

    const onlySecond = await store.sessionTrace(session, { runId: second.runId });
    expect(onlySecond.runs.map((run) => run.runId)).toEqual([second.runId]);
    expect(onlySecond.toolInvocations.every((r) => r.runId === second.runId)).toBe(true);
    expect(onlySecond.events).toHaveLength(5);
    expect(await store.sessionTrace(`unknown-${session}`)).toEqual({ sessionId: `unknown-${session}`, runs: [], toolInvocations: [], events: [] });
  });

  test('a run still waiting reads as awaiting_input with the route it asked on', async () => {
    const ids = idsOf(newSession());
    const { events } = runBatch(ids, T0);
    await store.record({ invocations: [], events: events.slice(0, 2) });
    const [run] = (await store.sessionTrace(ids.sessionId)).runs;
    expect(run).toMatchObject({ status: 'awaiting_input', route: 'clarify' });
  });

  test('privacy: with includeContent false no query or chunk text reaches the stored bytes; with true it does', async () => {
    const hidden = distinctive();
    const hiddenIds = idsOf(newSession());
    await store.record(runBatch(hiddenIds, T0, hidden));
    const hiddenTrace = await store.sessionTrace(hiddenIds.sessionId);
    expect(hiddenTrace.toolInvocations.map((row) => row.content)).toEqual([null, null]);

    const kept = distinctive();
    const keptIds = idsOf(newSession());
    const keeping = backend.open(true);
    try {
      await keeping.record(runBatch(keptIds, T0, kept));
      const keptTrace = await keeping.sessionTrace(keptIds.sessionId);
      expect(keptTrace.toolInvocations[0]?.content).toEqual({ query: kept.query, evidence_previews: [kept.chunkText] });
    } finally {
      await keeping.close();
    }
    // Written and closed: the bytes on disk (SQLite file and WAL) or every row as PostgreSQL returns it.
    const stored = await backend.storedText();
    expect(stored).toContain(hiddenIds.workflowId); // the search does see the rows
    expect(stored).not.toContain(hidden.query);
    expect(stored).not.toContain(hidden.chunkText.split(' ')[0]);
    expect(stored).toContain(kept.query);
    expect(stored).toContain(kept.chunkText.split(' ')[0]);
  });
});

test('an unreachable PostgreSQL is a retryable SERVICE_UNAVAILABLE naming the store, without the password', async () => {
  const store = createAuditStore({ databaseUrl: 'postgres://user:secret@127.0.0.1:1/none', sqliteFile: '', includeContent: false });
  try {
    const error = await store.sessionTrace('s').then(() => null, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RagError);
    expect((error as RagError).code).toBe('SERVICE_UNAVAILABLE');
    expect((error as RagError).message).toContain('audit store migration failed (postgres://user:***@127.0.0.1:1/none)');
    expect((error as RagError).message).not.toContain('secret');
  } finally {
    await store.close();
  }
});
