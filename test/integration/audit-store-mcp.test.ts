/**
 * Agents' MCP tool calls in the audit store (issue 15 §1, seed 004 §4.2's rows for "其它工具"), on both backends: a
 * SQLite temp file and PostgreSQL at TEST_DATABASE_URL. Written once per call (idempotent on its step), listed apart
 * from the runs' rag_lookup_v1 rows in the session trace, and no raw text unless the store keeps content.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuditStore, type SqlAuditStore } from '../../activities/adapters/sql-audit-store';
import { buildMcpToolCall, type McpCallFacts } from '../../core/audit/mcp-tool-call';
import { buildToolInvocation } from '../../core/audit/tool-invocation';
import { SessionTrace } from '../../core/schemas/audit';
import { chunk, metaM0 } from '../support/scenario';
import { assertReachable, services } from '../support/services';

const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);
let dir = '';

const backends = [
  {
    name: 'SQLite file',
    prepare: async () => undefined,
    open: (includeContent: boolean) => createAuditStore({ sqliteFile: join(dir, 'audit.sqlite'), includeContent }),
  },
  {
    name: 'PostgreSQL',
    prepare: () => assertReachable('PostgreSQL', new URL(services.testDatabaseUrl).host),
    open: (includeContent: boolean) => createAuditStore({ databaseUrl: services.testDatabaseUrl, sqliteFile: '/nonexistent/unused.db', includeContent }),
  },
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragtime-audit-mcp-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function askFacts(session: string, question: string): McpCallFacts {
  return {
    tool: 'ask_knowledge',
    callId: randomUUID(),
    transport: 'stdio',
    sessionId: session,
    run: { workflowId: `rag-${session}-1`, runId: `${session}-run`, status: 'completed', route: 'answer', retrievalStatus: 'answerable' },
    kb: 'kb_main',
    relevanceLevel: null,
    evidence: [{ source: 'a.md', score: 0.8, text: `证据 ${question}` }],
    evidenceTotal: 3,
    elicited: 0,
    cancelled: false,
    errorCode: null,
    query: question,
    startedAt: T0,
    endedAt: T0 + 40,
  };
}

describe.each(backends)('MCP tool calls in the audit store on $name', (backend) => {
  let store: SqlAuditStore;
  beforeAll(async () => {
    await backend.prepare();
    store = backend.open(false);
  });
  afterAll(async () => store?.close());

  test('a call is one row, recorded once; it sits in agentToolCalls, beside (not among) the run’s own rows', async () => {
    const session = `mcp-${randomUUID().slice(0, 8)}`;
    const question = `QUESTION-${randomUUID()}`;
    const facts = askFacts(session, question);
    const runRow = buildToolInvocation({ sessionId: session, workflowId: facts.run?.workflowId ?? '', runId: facts.run?.runId ?? '' }, {
      step: 'initial', stage: 'initial', query: question, retrieval: { docs: [chunk('x', { filename: 'a.md' })], meta: metaM0(1) }, grade: null, startedAt: T0, endedAt: T0 + 5, errorCode: null,
    });
    await store.record({ invocations: [runRow], events: [] });
    const record = buildMcpToolCall(facts);
    expect(await store.recordMcpToolCall(record)).toBe(true);
    expect(await store.recordMcpToolCall(record)).toBe(false);

    const trace = SessionTrace.parse(await store.sessionTrace(session));
    expect(trace.toolInvocations.map((row) => row.step)).toEqual(['initial']);
    expect(trace.agentToolCalls).toEqual([
      {
        workflowId: facts.run?.workflowId, runId: facts.run?.runId, step: record.step, toolName: 'ask_knowledge', relevanceLevel: null,
        evidenceCount: 1, candidateCount: 3, truncated: true,
        details: {
          audit_schema: 'mcp_tool_v1', transport: 'stdio', run_status: 'completed', route: 'answer', retrieval_status: 'answerable', kb: 'kb_main',
          sources: ['a.md'], top_score: 0.8, elicited_answers: 0, cancelled: false, error_code: null,
        },
        outputPreview: 'tool=ask_knowledge status=completed route=answer evidence=1/3', durationMs: 40, success: true, errorCode: null,
        createdAt: '2026-12-01T09:00:00.040Z', content: null,
      },
    ]);
    // Privacy by default: the question is nowhere in what the Trace API returns.
    expect(JSON.stringify(trace)).not.toContain(question);
    // The runs of the session come from the run's rows and events, not from the agent's calls.
    expect(trace.runs.map((run) => run.workflowId)).toEqual([facts.run?.workflowId]);
    // ?runId= narrows the calls too.
    expect((await store.sessionTrace(session, { runId: 'another-run' })).agentToolCalls).toBeUndefined();
  });

  test('a cancelled call: success false, error CANCELLED; with content on, the question is kept', async () => {
    const session = `mcp-${randomUUID().slice(0, 8)}`;
    const withContent = backend.open(true);
    try {
      const question = `QUESTION-${randomUUID()}`;
      await withContent.recordMcpToolCall(buildMcpToolCall({ ...askFacts(session, question), cancelled: true, errorCode: 'SERVICE_UNAVAILABLE' }));
      const [row] = SessionTrace.parse(await withContent.sessionTrace(session)).agentToolCalls ?? [];
      expect(row).toMatchObject({ success: false, errorCode: 'CANCELLED', details: { cancelled: true, error_code: 'CANCELLED' } });
      expect(row?.outputPreview).toBe('tool=ask_knowledge status=cancelled route=answer evidence=1/3 error=CANCELLED');
      expect(row?.content).toEqual({ query: question, evidence_previews: [`证据 ${question}`] });
    } finally {
      await withContent.close();
    }
  });
});
