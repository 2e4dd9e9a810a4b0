import { AuditTrail } from '../../../core/audit/audit-trail';
import { cutText, isoTime, redactQuery } from '../../../core/audit/bounded-text';
import {
  answerReceivedEvent,
  completedEvent,
  failedEvent,
  hitlRequestedEvent,
  runStartedEvent,
} from '../../../core/audit/diagnosis-events';
import {
  AUDIT_MAX_KEYS,
  EVIDENCE_PREVIEW_CHARS,
  buildToolInvocation,
  type InvocationFacts,
  type InvocationGrade,
} from '../../../core/audit/tool-invocation';
import { AuditBatch, DiagnosisEvent, ToolInvocationRecord } from '../../../core/schemas/audit';
import type { RetrievalDiagnostics } from '../../../core/schemas/retrieval-diagnostics';
import type { RetrievalResult } from '../../../core/trace/writers';
import { chunk, metaM0 } from '../../support/scenario';

/*
 * The audit builders (DESIGN §5 layer B, seed 004 §4.2–§4.3): one bounded tool_invocation row per retrieval + grade,
 * thin content-free timeline events, and the trail a run keeps until its next settle point.
 */

const IDS = { sessionId: 's-1', workflowId: 'rag-1', runId: 'run-1' };
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const QUERY = '丹瑾是什么属性？';

const answerGrade: InvocationGrade = {
  route: 'answer', retrievalStatus: 'answerable', relevance: 'strong', answerability: 'sufficient', confidence: 0.95,
  keptCount: 2, gradedBy: 'scripted-model',
};
const clarifyGrade: InvocationGrade = { ...answerGrade, route: 'clarify', retrievalStatus: 'needs_clarification', relevance: 'weak', keptCount: 0 };

const docs = [
  chunk('丹瑾是湮灭属性角色。', { chunk_id: 'a.md::p0::l3::1', filename: 'a.md' }),
  chunk('x'.repeat(500), { chunk_id: 'b.md::p0::l3::7', filename: 'b.md' }),
];

function diagnostics(attempts: RetrievalDiagnostics['attempts'], embeddingError: string | null = null): RetrievalDiagnostics {
  return {
    embedding_error: embeddingError,
    legs: { dense: null, bm25: null, dense_fallback: null },
    fused: [],
    merge_groups: [],
    reranked: [],
    attempts,
    timing_ms: { embed: 1, dense: 1, bm25: 1, fuse: 0, merge: 0, rerank: null, total: 3 },
  };
}

const hybridOk = { name: 'hybrid' as const, candidate_count: 24, usable: true, top_score: 0.03, duration_ms: 12, error: null };

function facts(overrides: Partial<InvocationFacts> = {}): InvocationFacts {
  const retrieval: RetrievalResult = { docs, meta: { ...metaM0(2), recall_count: 24 }, diagnostics: diagnostics([hybridOk]) };
  return {
    step: 'initial', stage: 'initial', query: QUERY, retrieval, grade: answerGrade,
    startedAt: T0, endedAt: T0 + 850, errorCode: null, ...overrides,
  };
}

describe('buildToolInvocation', () => {
  test('an answered retrieval: columns, rag_lookup_v1 details, a content-free preview, content kept apart', () => {
    const row = buildToolInvocation(IDS, facts());
    expect(ToolInvocationRecord.safeParse(row).success).toBe(true);
    const { retrieval_details: details, content, ...columns } = row;
    expect(columns).toEqual({
      session_id: 's-1', workflow_id: 'rag-1', run_id: 'run-1', step: 'initial', tool_name: 'search_knowledge_base',
      retrieval_layer: 'L3', relevance_level: 'strong', evidence_count: 2, candidate_count: 24, is_truncated: false,
      output_preview: 'status=EVIDENCE_FOUND route=answer relevance=strong evidence=2/24 kept=2 mode=hybrid attempt=hybrid',
      duration_ms: 850, success: true, error_message: null, created_at: '2026-11-30T08:00:00.850Z',
    });
    expect(details).toEqual({
      audit_schema: 'rag_lookup_v1', stage: 'initial', search_mode: 'hybrid', selected_attempt: 'hybrid',
      fallback_reason: null, attempts: [hybridOk], evidence_keys: ['a.md::p0::l3::1', 'b.md::p0::l3::7'],
      sources: ['a.md', 'b.md'], evidence_candidate_count: 24, evidence_block_count: 2, returned_count: 2,
      evidence_status: 'EVIDENCE_FOUND', route: 'answer', retrieval_status: 'answerable', evidence_relevance: 'strong',
      evidence_answerability: 'sufficient', evidence_confidence: 0.95,
      rerank: { enabled: false, applied: false, error: null }, auto_merge: { applied: false, replaced_chunks: 0 },
      graded_by: 'scripted-model',
    });
    // The raw text lives only in `content` (the store drops it unless AUDIT_INCLUDE_CONTENT=true).
    expect(content?.query).toBe(QUERY);
    expect(content?.evidence_previews[0]).toBe('丹瑾是湮灭属性角色。');
    expect(content?.evidence_previews[1]).toHaveLength(EVIDENCE_PREVIEW_CHARS);
    const withoutContent = JSON.stringify({ ...row, content: null });
    expect(withoutContent).not.toContain(QUERY);
    expect(withoutContent).not.toContain('湮灭');
  });

  test('a grade that drops the evidence (clarify) marks the row truncated: 2 retrieved, 0 passed on', () => {
    const row = buildToolInvocation(IDS, facts({ grade: clarifyGrade }));
    expect([row.is_truncated, row.relevance_level, row.retrieval_details.returned_count, row.retrieval_details.route]).toEqual([
      true, 'weak', 0, 'clarify',
    ]);
  });

  test('no evidence: NO_EVIDENCE, not graded by a model (spec §4.5.1)', () => {
    const retrieval: RetrievalResult = { docs: [], meta: metaM0(0) };
    const row = buildToolInvocation(IDS, facts({ retrieval, grade: { ...answerGrade, route: 'no_knowledge', retrievalStatus: 'no_knowledge', relevance: 'none', keptCount: 0, gradedBy: null } }));
    expect(row.retrieval_details).toMatchObject({ evidence_status: 'NO_EVIDENCE', graded_by: null, evidence_keys: [], sources: [], selected_attempt: 'hybrid', attempts: [] });
    expect([row.success, row.is_truncated]).toEqual([true, false]);
  });

  test('dense fallback: the completed attempt is selected, fallback_reason hybrid_failed, the query redacted from errors', () => {
    const retrieval: RetrievalResult = {
      docs,
      meta: { ...metaM0(2), retrieval_mode: 'dense_fallback' },
      diagnostics: diagnostics([
        { name: 'hybrid', candidate_count: 0, usable: false, top_score: null, duration_ms: 5, error: `bm25 failed for "${QUERY}"` },
        { ...hybridOk, name: 'dense_fallback' },
      ]),
    };
    const details = buildToolInvocation(IDS, facts({ retrieval })).retrieval_details;
    expect([details.search_mode, details.selected_attempt, details.fallback_reason]).toEqual(['dense_fallback', 'dense_fallback', 'hybrid_failed']);
    expect(details.attempts[0]?.error).toBe('bm25 failed for "[query]"');
  });

  test('a failed retrieval (embedding down): RETRIEVAL_FAILED, success false, the reason and the bounded error', () => {
    const retrieval: RetrievalResult = {
      docs: [],
      meta: { ...metaM0(0), retrieval_mode: 'failed', rerank_error: 'embedding_failed' },
      diagnostics: diagnostics([], 'connect ECONNREFUSED 127.0.0.1:8765'),
    };
    const row = buildToolInvocation(IDS, facts({ retrieval, grade: { ...answerGrade, route: 'no_knowledge', retrievalStatus: 'no_knowledge', relevance: 'none', keptCount: 0, gradedBy: null } }));
    expect([row.success, row.error_message]).toEqual([false, 'embedding_failed: connect ECONNREFUSED 127.0.0.1:8765']);
    expect(row.retrieval_details).toMatchObject({ evidence_status: 'RETRIEVAL_FAILED', selected_attempt: null, fallback_reason: 'embedding_failed' });
    expect(row.output_preview.endsWith(' failed')).toBe(true);
  });

  test('cut short by a failure of the run: the error code only (a message may quote the question), not graded', () => {
    const row = buildToolInvocation(IDS, facts({ grade: null, errorCode: 'MODEL_OUTPUT_INVALID' }));
    expect([row.success, row.error_message, row.relevance_level, row.is_truncated]).toEqual([false, 'MODEL_OUTPUT_INVALID', null, false]);
    expect(row.retrieval_details).toMatchObject({ route: null, returned_count: 0, graded_by: null, evidence_status: 'EVIDENCE_FOUND' });
    const lost = buildToolInvocation(IDS, facts({ retrieval: null, grade: null, errorCode: 'INTERNAL' }));
    expect(lost.retrieval_details).toMatchObject({ evidence_status: 'RETRIEVAL_FAILED', fallback_reason: 'retrieval_not_returned', search_mode: 'unknown' });
    expect(lost.retrieval_layer).toBe('unknown');
    expect(ToolInvocationRecord.safeParse(lost).success).toBe(true);
  });

  test('bounded: at most 20 evidence keys, sources and previews; the preview fits its 300-character column', () => {
    const many = Array.from({ length: 50 }, (_, i) => chunk(`t${i}`, { chunk_id: `f${i}.md::p0::l3::${i}`, filename: `f${i}.md` }));
    const row = buildToolInvocation(IDS, facts({ retrieval: { docs: many, meta: metaM0(50) } }));
    expect(row.retrieval_details.evidence_keys).toHaveLength(AUDIT_MAX_KEYS);
    expect(row.retrieval_details.sources).toHaveLength(AUDIT_MAX_KEYS);
    expect(row.content?.evidence_previews).toHaveLength(AUDIT_MAX_KEYS);
    expect(row.retrieval_details.evidence_block_count).toBe(50);
    expect(row.output_preview.length).toBeLessThanOrEqual(300);
  });
});

describe('diagnosis events', () => {
  test('keys unique within a run; details bounded and content-free', () => {
    const events = [
      runStartedEvent(IDS, T0, { resumed: false, maxRounds: 3, answerTimeoutMs: 1000 }),
      hitlRequestedEvent(IDS, T0 + 1, { round: 1, route: 'clarify', retrievalStatus: 'needs_clarification', optionCount: 2 }),
      answerReceivedEvent(IDS, T0 + 2, { round: 1, via: 'update' }),
      completedEvent(IDS, T0 + 3, { route: 'answer', retrievalStatus: 'answerable', rounds: 1, awaitingPerson: false, evidenceCount: 1 }),
      failedEvent(IDS, T0 + 4, { errorType: 'E'.repeat(500), route: null }),
    ];
    for (const event of events) expect(DiagnosisEvent.safeParse(event).success).toBe(true);
    expect(events.map((e) => [e.key, e.event_type, e.detail.status])).toEqual([
      ['run_started', 'run_started', 'running'],
      ['hitl_requested:1', 'hitl_requested', 'awaiting_input'],
      ['answer_received:1', 'answer_received', 'running'],
      ['completed', 'completed', 'completed'],
      ['failed', 'failed', 'failed'],
    ]);
    expect(events[1]?.detail).toEqual({ status: 'awaiting_input', round: 1, route: 'clarify', retrieval_status: 'needs_clarification', option_count: 2 });
    expect(String(events[4]?.detail.error_type)).toHaveLength(100);
    expect(events[0]?.created_at).toBe('2026-11-30T08:00:00.000Z');
  });

  test('a degraded run (issue 14 §2): the completed event names the component and counts, never the error text', () => {
    const facts = { route: 'no_knowledge', retrievalStatus: 'no_knowledge', rounds: 0, awaitingPerson: false, evidenceCount: 0 };
    const event = completedEvent(IDS, T0, { ...facts, degraded: { component: 'embeddings', retrievals: 1, of: 1 } });
    expect(DiagnosisEvent.safeParse(event).success).toBe(true);
    expect(event.detail).toMatchObject({ degraded_component: 'embeddings', degraded_retrievals: 1, retrievals: 1 });
    expect(Object.keys(completedEvent(IDS, T0, { ...facts, degraded: null }).detail)).not.toContain('degraded_component');
  });
});

describe('AuditTrail', () => {
  const retrieval: RetrievalResult = { docs, meta: metaM0(2) };

  test('steps: initial, rewritten, hitl-<round> after an answer, hitl-0 for a resume; taken once, in order', () => {
    const trail = new AuditTrail();
    trail.runStarted(T0, { resumed: false, maxRounds: 3, answerTimeoutMs: 1000 });
    trail.beginInvocation('initial', QUERY, T0);
    trail.retrieved(retrieval);
    trail.graded({ ...answerGrade, route: 'rewrite', retrievalStatus: 'needs_rewrite' }, T0 + 10);
    trail.beginInvocation('rewritten', `${QUERY} step back`, T0 + 20);
    trail.retrieved(retrieval);
    trail.graded(clarifyGrade, T0 + 30);
    trail.hitlRequested(T0 + 30, { round: 1, route: 'clarify', retrievalStatus: 'needs_clarification', optionCount: 0 });
    const first = trail.take(IDS);
    expect(AuditBatch.safeParse(first).success).toBe(true);
    expect(first?.invocations.map((row) => [row.step, row.retrieval_details.stage, row.duration_ms])).toEqual([
      ['initial', 'initial', 10],
      ['rewritten', 'rewritten', 10],
    ]);
    expect(first?.events.map((event) => event.key)).toEqual(['run_started', 'hitl_requested:1']);
    expect(trail.take(IDS)).toBeNull();

    trail.answerReceived(T0 + 40, { round: 1, via: 'signal' });
    trail.beginInvocation('hitl_targeted', `丹瑾：${QUERY}`, T0 + 40);
    trail.retrieved(retrieval);
    trail.graded(answerGrade, T0 + 50);
    trail.completed(T0 + 50, { route: 'answer', retrievalStatus: 'answerable', rounds: 1, awaitingPerson: false, evidenceCount: 2 });
    const second = trail.take(IDS);
    expect(second?.invocations.map((row) => row.step)).toEqual(['hitl-1']);
    expect(second?.events.map((event) => event.key)).toEqual(['answer_received:1', 'completed']);

    const resumed = new AuditTrail();
    resumed.answerReceived(T0, { round: 0, via: 'resume_from' });
    resumed.beginInvocation('hitl_targeted', QUERY, T0);
    resumed.graded(answerGrade, T0 + 1);
    expect(resumed.take(IDS)?.invocations.map((row) => row.step)).toEqual(['hitl-0']);
  });

  test('a sub-question\'s record is adopted under the parent\'s ids and step', () => {
    const child = new AuditTrail();
    child.forSubQuestion(2);
    child.beginInvocation('sub_question', '卡卡罗的战斗定位', T0);
    child.retrieved(retrieval);
    child.graded(answerGrade, T0 + 5);
    const record = child.take({ sessionId: '', workflowId: 'rag-1/sub-2', runId: 'child-run' })?.invocations[0];
    expect(record?.step).toBe('sub-2');

    const parent = new AuditTrail();
    parent.adopt(record as ToolInvocationRecord, 'sub-2');
    const adopted = parent.take(IDS)?.invocations[0];
    expect([adopted?.session_id, adopted?.workflow_id, adopted?.run_id, adopted?.step, adopted?.retrieval_details.stage]).toEqual([
      's-1', 'rag-1', 'run-1', 'sub-2', 'sub_question',
    ]);
  });

  test('a failure during an invocation closes it as failed; a batch that could not be recorded goes back first', () => {
    const trail = new AuditTrail();
    trail.runStarted(T0, { resumed: false, maxRounds: 3, answerTimeoutMs: 1000 });
    const lost = trail.take(IDS) as NonNullable<ReturnType<AuditTrail['take']>>;
    trail.beginInvocation('initial', QUERY, T0);
    trail.retrieved(retrieval);
    trail.failed(T0 + 7, { errorType: 'MODEL_OUTPUT_INVALID', route: null });
    trail.requeue(lost);
    const batch = trail.take(IDS);
    expect(batch?.events.map((event) => event.key)).toEqual(['run_started', 'failed']);
    expect(batch?.invocations.map((row) => [row.step, row.success, row.error_message])).toEqual([['initial', false, 'MODEL_OUTPUT_INVALID']]);
  });
});

test('text helpers: cut without splitting characters, the query redacted wherever it appears, ISO time', () => {
  expect(cutText('😀'.repeat(10), 5)).toBe('😀😀…');
  expect(redactQuery('a 丹瑾 b 丹瑾', ' 丹瑾 ')).toBe('a [query] b [query]');
  expect(redactQuery('abc', '  ')).toBe('abc');
  expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z');
});
