import { attributeMiss, retrievalLoss } from '../../../core/eval/attribution';
import { containsGold, evaluateQuestion, routeIsCorrect, type RunFacts } from '../../../core/eval/evaluate-question';
import { documentOfChunk, parseGoldenQuestions, type GoldenQuestion } from '../../../core/eval/golden-set';
import { renderHtml, renderMarkdown } from '../../../core/eval/render-report';
import { buildReport, compareReports } from '../../../core/eval/report';
import type { RagAnswer } from '../../../core/schemas/answer';
import type { RetrievalDiagnostics } from '../../../core/schemas/retrieval-diagnostics';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';
import type { RetrievalResult } from '../../../core/trace/writers';

/*
 * The evaluation harness's pure parts (issue 13 §1): golden-set parsing, scoring one run, the failure attribution
 * — one constructed miss per layer, each must name that layer — and the report with its comparison.
 */

const GOLD = 'manual.md';
const chunkOf = (doc: string, n = 0) => `${doc}::p0::l3::${n}`;
const leg = (doc: string, rank: number) => ({ chunk_id: chunkOf(doc, rank), filename: doc, rank, score: 1 / rank, text_preview: '' });
const fusedOf = (doc: string, rank: number) => ({ chunk_id: chunkOf(doc, rank), filename: doc, rank, rrf_score: 1 / (60 + rank), dense_rank: rank, bm25_rank: null, text_preview: '' });
const doc = (name: string, n = 0): Chunk => ({ chunk_id: chunkOf(name, n), doc_id: name, filename: name, text: `${name} text` });

type Stages = { dense?: string[]; bm25?: string[]; fused?: string[]; merged?: string[]; final?: string[]; rerank?: boolean; postRerank?: number; postThreshold?: number };

/** A retrieval whose diagnostics hold the given documents at each stage. */
function retrieval(stages: Stages): RetrievalResult {
  const diagnostics: RetrievalDiagnostics = {
    embedding_error: null,
    legs: { dense: (stages.dense ?? []).map(leg), bm25: (stages.bm25 ?? []).map(leg), dense_fallback: null },
    fused: (stages.fused ?? []).map(fusedOf),
    merge_groups: (stages.merged ?? []).map((child) => ({ parent_chunk_id: 'other.md::p0::l1::0', level: 1, child_count: 2, child_chunk_ids: [chunkOf(child, 1)] })),
    reranked: [],
    attempts: [],
    timing_ms: { embed: null, dense: null, bm25: null, fuse: null, merge: null, rerank: null, total: 1 },
  };
  const final = stages.final ?? [];
  const meta = {
    retrieval_mode: 'hybrid',
    rerank_applied: stages.rerank ?? false,
    retrieval_top_k: 5,
    post_rerank_count: stages.postRerank ?? final.length,
    post_threshold_count: stages.postThreshold ?? final.length,
  } as unknown as RetrievalResult['meta'];
  return { docs: final.map((name) => doc(name)), meta, diagnostics };
}

const question = (overrides: Partial<GoldenQuestion> = {}): GoldenQuestion => ({ id: 'q1', question: '保修期多久？', answerable: true, gold_doc_ids: [GOLD], gold_answers: ['2 年'], ...overrides });

const answer = (text: string): RagAnswer => ({ text, citations: [], verification: { status: 'verified', checked: 1, failed: [] } }) as unknown as RagAnswer;

function run(overrides: Partial<RunFacts> & { retrieval?: RetrievalResult }): RunFacts {
  const { retrieval: only, ...rest } = overrides;
  return {
    workflowId: 'rag-eval-1',
    status: 'completed',
    route: 'answer',
    retrievalStatus: 'answerable',
    answer: answer('保修期为 2 年。[1]'),
    retrievals: [{ purpose: 'initial', result: only ?? retrieval({ dense: [GOLD], bm25: [GOLD], fused: [GOLD], final: [GOLD] }) }],
    modelCalls: 3,
    latencyMs: 500,
    error: null,
    ...rest,
  };
}

describe('golden sets: questions.jsonl checked with zod', () => {
  test('valid lines parse; problems name their line; duplicates and answerable questions without gold are refused', () => {
    const text = [
      JSON.stringify({ id: 'a', question: 'Q?', answerable: true, gold_doc_ids: ['x.md'], gold_answers: ['y'] }),
      '',
      'not json',
      JSON.stringify({ id: 'b', question: '', answerable: true }),
      JSON.stringify({ id: 'a', question: 'again', answerable: false }),
      JSON.stringify({ id: 'c', question: 'Q?', answerable: true }),
      JSON.stringify({ id: 'd', question: 'which one?', answerable: true, expected_route: 'scope_select' }),
      JSON.stringify({ id: 'e', question: 'Q?', answerable: false, extra: 1 }),
    ].join('\n');
    const { questions, problems } = parseGoldenQuestions(text);
    expect(questions.map((q) => q.id)).toEqual(['a', 'd']);
    expect(problems).toHaveLength(5);
    expect(problems[0]).toBe('line 3: not JSON');
    expect(problems[1]).toMatch(/^line 4: .*question is empty/);
    expect(problems[2]).toBe('line 5: id "a" appears twice');
    expect(problems[3]).toBe('line 6: an answerable question needs gold_doc_ids (or an expected_route)');
    expect(problems[4]).toMatch(/^line 8: .*extra/);
  });

  test('a chunk id names its document', () => {
    expect(documentOfChunk('docs/a b.md::p0::l3::7')).toBe('docs/a b.md');
  });
});

describe('scoring one run', () => {
  test('routes: answerable → answer; unanswerable → no_knowledge or clarify; an expected route must match', () => {
    expect(routeIsCorrect({ answerable: true }, 'answer')).toBe(true);
    expect(routeIsCorrect({ answerable: true }, 'scope_select')).toBe(false);
    expect(routeIsCorrect({ answerable: false }, 'no_knowledge')).toBe(true);
    expect(routeIsCorrect({ answerable: false }, 'clarify')).toBe(true);
    expect(routeIsCorrect({ answerable: false }, 'answer')).toBe(false);
    expect(routeIsCorrect({ answerable: true, expected_route: 'scope_select' }, 'scope_select')).toBe(true);
  });

  test('a gold span is found as the verifier compares quotes (markers out, width and space folded)', () => {
    expect(containsGold('保修期为 2 年。[1]', ['2 年'])).toBe(true);
    expect(containsGold('保修期为２年。', ['2 年'])).toBe(true);
    expect(containsGold('保修期为 3 年。', ['2 年'])).toBe(false);
  });

  test('ranks per list are read from the diagnostics of the question’s own retrieval', () => {
    const result = evaluateQuestion(question(), run({ retrieval: retrieval({ dense: ['x.md', GOLD], bm25: [GOLD], fused: ['x.md', 'y.md', GOLD], final: ['x.md', GOLD] }) }));
    expect(result.ranks).toEqual({ dense: 2, bm25: 1, fused: 3, final: 2 });
    expect([result.route_correct, result.answer_contains_gold, result.attribution]).toEqual([true, true, null]);
  });
});

describe('failure attribution: the first layer that lost the question (one constructed miss per layer)', () => {
  const lost = (stages: Stages, facts: Partial<RunFacts> = {}, q = question()) =>
    evaluateQuestion(q, run({ route: 'no_knowledge', retrievalStatus: 'no_knowledge', answer: null, retrieval: retrieval(stages), ...facts })).attribution;

  test('run_failed: the run itself failed', () => {
    expect(lost({}, { status: 'failed', route: null, error: { type: 'SERVICE_UNAVAILABLE', message: 'Milvus down' } })?.layer).toBe('run_failed');
  });
  test('filter: the question\'s metadata filter left the gold document out ("filter too narrow", issue 44 §2)', () => {
    const filtered = question({ filters: { product: 'zephyr' } });
    expect(lost({ dense: ['x.md'], bm25: ['x.md'], fused: ['x.md'], final: ['x.md'] }, { filteredOut: [GOLD] }, filtered)).toEqual({ layer: 'filter', detail: `filter too narrow: the gold document ${GOLD} does not match it` });
    // A gold document that passes the filter and is still not recalled is a recall miss.
    expect(lost({ dense: ['x.md'], bm25: ['x.md'], fused: ['x.md'], final: ['x.md'] }, {}, filtered)?.layer).toBe('recall');
  });
  test('recall: neither leg returned a gold document', () => {
    expect(lost({ dense: ['x.md'], bm25: ['y.md'], fused: ['x.md', 'y.md'], final: ['x.md'] })?.layer).toBe('recall');
  });
  test('fusion: a leg had it, RRF cut it', () => {
    expect(lost({ dense: ['x.md'], bm25: ['y.md', GOLD], fused: ['x.md', 'y.md'], final: ['x.md'] })).toEqual({ layer: 'fusion', detail: expect.stringContaining('BM25 rank 2') });
  });
  test('auto_merge: its chunks were folded into a parent that did not reach the evidence', () => {
    expect(lost({ dense: [GOLD], bm25: [GOLD], fused: [GOLD], merged: [GOLD], final: ['x.md'] })?.layer).toBe('auto_merge');
  });
  test('rerank: fused in, moved out of top_k by the reranker', () => {
    expect(lost({ dense: [GOLD], bm25: [GOLD], fused: ['x.md', GOLD], final: ['x.md'], rerank: true })?.layer).toBe('rerank');
  });
  test('threshold: the min-score threshold dropped it', () => {
    expect(lost({ dense: [GOLD], bm25: [GOLD], fused: ['x.md', GOLD], final: ['x.md'], postRerank: 2, postThreshold: 1 })?.layer).toBe('threshold');
  });
  test('top_k: fused below the top k kept', () => {
    expect(lost({ dense: [GOLD], bm25: [GOLD], fused: ['a.md', 'b.md', 'c.md', 'd.md', 'e.md', GOLD], final: ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'] })?.layer).toBe('top_k');
  });
  test('grading: the gold evidence was there, the route was wrong', () => {
    expect(lost({ dense: [GOLD], bm25: [GOLD], fused: [GOLD], final: [GOLD] })).toEqual({ layer: 'grading', detail: expect.stringContaining('gold evidence retrieved, route no_knowledge') });
  });
  test('grading: an unanswerable question was answered', () => {
    const q = question({ answerable: false, gold_doc_ids: [], gold_answers: [] });
    expect(lost({ final: ['x.md'] }, { route: 'answer', answer: answer('x') }, q)?.layer).toBe('grading');
  });
  test('answer: answered from gold evidence, no gold span in the answer', () => {
    const result = evaluateQuestion(question(), run({ answer: answer('保修期为 3 年。[1]') }));
    expect(result.attribution?.layer).toBe('answer');
  });
  test('the last retrieval is the one attributed: a rewrite that lost the gold document', () => {
    const first = retrieval({ dense: [GOLD], bm25: [GOLD], fused: [GOLD], final: [GOLD] });
    const rewritten = retrieval({ dense: ['x.md'], bm25: ['y.md'], fused: ['x.md'], final: ['x.md'] });
    const result = evaluateQuestion(question(), { ...run({ route: 'clarify', answer: null }), retrievals: [{ purpose: 'initial', result: first }, { purpose: 'rewritten', result: rewritten }] });
    expect(result.attribution?.layer).toBe('recall');
    expect(retrievalLoss(first, new Set([GOLD]))).toBeNull();
    expect(attributeMiss(question(), { ...result, route_correct: true, answer_contains_gold: true }, rewritten)).toBeNull();
  });
});

describe('the report', () => {
  const results = [
    evaluateQuestion(question({ id: 'right' }), run({})),
    evaluateQuestion(question({ id: 'lost-at-grading' }), run({ route: 'no_knowledge', answer: null, latencyMs: 900 })),
    evaluateQuestion(question({ id: 'absent', answerable: false, gold_doc_ids: [], gold_answers: [] }), run({ route: 'no_knowledge', answer: null, latencyMs: 100 })),
    evaluateQuestion(question({ id: 'pick', gold_doc_ids: [], expected_route: 'scope_select' }), run({ route: 'scope_select', answer: null })),
  ];
  const report = buildReport({ set: 'demo', kb: 'eval_demo', provider: 'offline-policy v2', createdAt: '2026-12-01T00:00:00Z', results });

  test('routes, confusion matrix, retrieval, answers, cost and the funnel', () => {
    const s = report.summary;
    expect([s.n, s.answerable, s.unanswerable]).toEqual([4, 2, 1]);
    expect(s.routes).toMatchObject({ accuracy: 0.75, answerable_answered: 0.5, unanswerable_not_answered: 1, scope_select: 0.25 });
    expect(s.routes.confusion).toEqual({ answer: { answer: 1, no_knowledge: 1 }, no_answer: { no_knowledge: 1 }, scope_select: { scope_select: 1 } });
    expect(s.retrieval.final).toEqual({ n: 2, hit1: 1, hit5: 1, mrr10: 1 });
    expect(s.answers).toEqual({ answered: 1, contains_gold: 1, verified: 1 });
    expect(s.latency_ms).toEqual({ p50: 500, p95: 900 });
    expect(s.attribution.grading).toBe(1);
    expect(s.funnel.map((f) => f.count)).toEqual([2, 2, 2, 2, 2, 2, 1, 1]);
  });

  test('compare: per-question regressions and improvements', () => {
    const worse = buildReport({ ...report, createdAt: report.created_at, results: [evaluateQuestion(question({ id: 'right' }), run({ route: 'clarify', answer: null })), ...results.slice(1, 3)] });
    expect(compareReports(report, worse)).toEqual({ regressions: [{ id: 'right', before: 'answer', after: 'clarify', layer: 'grading' }], improvements: [], unmatched: ['pick'] });
    expect(compareReports(worse, report).improvements).toEqual([{ id: 'right', before: 'clarify', after: 'answer' }]);
  });

  test('markdown and a self-contained HTML page: funnel chart, misses linked to the Temporal UI, nothing fetched', () => {
    expect(renderMarkdown(report)).toContain('| lost-at-grading | 保修期多久？ | answer | no_knowledge | grading |');
    const html = renderHtml(report, (id) => `http://127.0.0.1:8233/namespaces/default/workflows/${id}`);
    expect(html).toContain('<svg role="img"');
    expect(html).toContain('href="http://127.0.0.1:8233/namespaces/default/workflows/rag-eval-1"');
    expect(html).not.toMatch(/<script|<link|src=/);
  });
});

describe('dialogues: follow-up questions (issue 25 §3)', () => {
  const conversation = (standalone: string) => ({
    question: '它的保修期多久？', turnsBefore: 1, turnsUsed: [1], turnsDropped: 0, dropReason: null, standaloneQuestion: standalone, condensedBy: 'offline_rules' as const, why: 'resolved',
  });
  const followUp = (id: string, standalone: string, alone: string[]) =>
    evaluateQuestion(question({ id, question: '它的保修期多久？', turns: ['Aurora X2 路由器的价格是多少？'] }), {
      ...run({}),
      followUp: { conversation: conversation(standalone), retrievalsWithout: [{ purpose: 'initial', result: retrieval({ final: alone }) }] },
    });

  test('a follow-up records what it was read as and its gold rank asked alone; the summary compares hit@5', () => {
    const results = [followUp('found-alone', 'Aurora X2 路由器的保修期多久？', ['x.md', GOLD]), followUp('lost-alone', 'Aurora X2 路由器的保修期多久？', ['x.md']), evaluateQuestion(question(), run({}))];
    expect(results[0]?.follow_up).toEqual({ turns: 1, standalone_question: 'Aurora X2 路由器的保修期多久？', condensed_by: 'offline_rules', final_rank_without: 2 });
    expect(results[2]?.follow_up).toBeUndefined();
    const report = buildReport({ set: 'dialogues', kb: 'eval_dialogues', provider: 'offline-policy v2', createdAt: '2026-12-02T00:00:00Z', results });
    expect(report.summary.follow_ups).toEqual({ n: 2, rewritten: 1, hit5_with: 1, hit5_without: 0.5 });
    expect(renderMarkdown(report)).toContain('## Follow-up questions (dialogues: questions with turns)');
  });

  test('a set without dialogues has no follow-up summary; turns are checked like the rest', () => {
    expect(buildReport({ set: 's', kb: 'k', provider: 'p', createdAt: 'now', results: [evaluateQuestion(question(), run({}))] }).summary.follow_ups).toBeUndefined();
    expect(parseGoldenQuestions('{"id":"a","question":"它呢？","answerable":true,"gold_doc_ids":["g"],"turns":[]}').problems[0]).toMatch(/turns/);
    expect(parseGoldenQuestions('{"id":"a","question":"它呢？","answerable":true,"gold_doc_ids":["g"],"turns":["X 是什么？"]}').questions[0]?.turns).toEqual(['X 是什么？']);
  });
});
