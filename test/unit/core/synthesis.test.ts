import { formatDocs } from '../../../core/graph/format-docs';
import { synthesize, type SubResult, type SynthesisInput } from '../../../core/graph/synthesis';
import { dedupeDocuments } from '../../../core/retrieval/dedupe-documents';
import type { RetrievalStatus, Route } from '../../../core/schemas/graph-values';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';
import { normalizeRagTrace } from '../../../core/trace/normalize';
import type { RawRagTrace } from '../../../core/trace/raw-trace';
import { R23, SUB16, SYN17, chunk, keySet, keysOf, metaM0, traced } from '../../support/scenario';

/*
 * `synthesis` (spec §4.10) and `dedupe_documents` (spec §4.10 step 3, §6.5.2, U15), on hand-built sub results.
 */

const QUESTION = '比较丹瑾与卡卡罗的战斗定位';
const REASON = '涉及多维度比较';

const ROUTE_OF: Record<RetrievalStatus, Route> = {
  answerable: 'answer',
  partial: 'answer',
  needs_rewrite: 'rewrite',
  needs_clarification: 'clarify',
  needs_scope_selection: 'scope_select',
  no_knowledge: 'no_knowledge',
};

/** A sub result as `rag_sub_agent` returns it (spec §4.9), with a sub-trace as retrieve + grade write it. */
function sub(question: string, status: RetrievalStatus, docs: Chunk[], trace: Partial<RawRagTrace> = {}): SubResult {
  const route = ROUTE_OF[status];
  const hitl = route === 'clarify' || route === 'scope_select';
  return {
    question,
    docs: hitl || route === 'no_knowledge' ? [] : docs,
    retrieval_status: status,
    route,
    rag_trace: {
      tool_used: true,
      tool_name: 'search_knowledge_base',
      query: question,
      retrieved_chunks: hitl ? [] : docs,
      initial_retrieved_chunks: docs,
      retrieval_stage: 'initial',
      complexity: null,
      complexity_reason: null,
      ...metaM0(docs.length),
      retrieval_status: status,
      evidence_relevance: 'weak',
      evidence_answerability: 'partial',
      evidence_ambiguity: 'none',
      evidence_confidence: 0.5,
      evidence_reason: '',
      missing_slots: [],
      hitl_prompt: '',
      hitl_options: [],
      route,
      ...trace,
    },
  };
}

function run(subResults: SubResult[], overrides: Partial<SynthesisInput> = {}) {
  const result = synthesize({
    question: QUESTION,
    complexityReason: REASON,
    subQuestions: subResults.map((result) => result.question),
    subResults,
    ...overrides,
  });
  const trace = normalizeRagTrace(result.traceFragment.fields);
  if (!trace) throw new Error('synthesis must write a trace');
  return { result, trace };
}

const A = chunk('A', { chunk_id: 'a', score: 0.8 });
const B = chunk('B', { chunk_id: 'b', score: 0.6 });
const C = chunk('C', { chunk_id: 'c', score: 0.5 });

describe('synthesis outcomes (spec §4.10 step 7–8, "Four terminal outcomes")', () => {
  test.each<[string, Route, RetrievalStatus, string, string, SubResult[]]>([
    [
      'evidence, some sub partial',
      'answer', 'partial', 'strong', 'partial',
      [sub('s1', 'answerable', [A]), sub('s2', 'partial', [B])],
    ],
    [
      'evidence, no sub partial',
      'answer', 'answerable', 'strong', 'sufficient',
      [sub('s1', 'answerable', [A]), sub('s2', 'no_knowledge', [B])],
    ],
    [
      'no evidence, a sub asks to choose a scope',
      'scope_select', 'needs_scope_selection', 'none', 'none',
      [sub('s1', 'needs_clarification', [A]), sub('s2', 'needs_scope_selection', [B])],
    ],
    [
      'no evidence, a sub asks to clarify',
      'clarify', 'needs_clarification', 'none', 'none',
      [sub('s1', 'no_knowledge', []), sub('s2', 'needs_clarification', [B])],
    ],
    [
      'no evidence, no sub HITL',
      'no_knowledge', 'no_knowledge', 'none', 'none',
      [sub('s1', 'no_knowledge', []), sub('s2', 'no_knowledge', [B])],
    ],
  ])('%s → %s / %s, relevance %s, answerability %s', (_name, route, status, relevance, answerability, subResults) => {
    const { result, trace } = run(subResults);

    expect([result.route, result.retrievalStatus]).toEqual([route, status]);
    expect(result.traceFragment.fields).toMatchObject({
      route,
      retrieval_status: status,
      evidence_relevance: relevance,
      evidence_answerability: answerability,
      // Written null, so absent after normalization (spec §4.10 step 8).
      evidence_confidence: null,
    });
    expect(keysOf(trace)).toEqual(keySet(SYN17));
  });

  test('the trace starts a new T with the parent question, "complex", the reason and the sub-question list', () => {
    const { result, trace } = run([sub('s1', 'answerable', [A])], { subQuestions: ['s1'] });

    expect(result.traceFragment.startsTrace).toBe(true);
    expect(trace).toMatchObject({
      tool_used: true,
      tool_name: 'search_knowledge_base',
      query: QUESTION,
      retrieval_stage: 'synthesis',
      complexity: 'complex',
      complexity_reason: REASON,
      sub_questions: ['s1'],
    });
  });

  test('a null complexity reason is written as "" (spec §4.10 step 8: default "")', () => {
    const { trace } = run([sub('s1', 'answerable', [A])], { complexityReason: null });

    expect(trace.complexity_reason).toBe('');
  });

  test('the context is the formatted deduped evidence, "" without evidence (spec §4.10 step 5)', () => {
    expect(run([sub('s1', 'answerable', [A, B])]).result.context).toBe(
      formatDocs([{ ...A, rrf_rank: 1 }, { ...B, rrf_rank: 2 }]),
    );
    expect(run([sub('s1', 'no_knowledge', [])]).result.context).toBe('');
  });
});

describe('sub-question HITL merge (spec §4.10 step 7)', () => {
  test('prompts: non-empty, deduped by first occurrence, joined with "；"; options deduped by exact equality', () => {
    const { result, trace } = run([
      sub('s1', 'needs_clarification', [A], { hitl_prompt: 'P1', hitl_options: ['a', 'b'] }),
      sub('s2', 'needs_clarification', [A], { hitl_prompt: '', hitl_options: ['b', 'a '] }),
      sub('s3', 'needs_scope_selection', [A], { hitl_prompt: 'P1', hitl_options: ['c', 'a'] }),
      sub('s4', 'needs_scope_selection', [A], { hitl_prompt: 'P2', hitl_options: [] }),
    ]);

    expect(result.hitlPrompt).toBe('P1；P2');
    // "a " differs from "a": exact equality, no trimming.
    expect(result.hitlOptions).toEqual(['a', 'b', 'a ', 'c']);
    expect(trace).toMatchObject({ hitl_prompt: 'P1；P2', hitl_options: ['a', 'b', 'a ', 'c'] });
  });

  test('a no_knowledge sub contributes neither prompt nor options', () => {
    const { result } = run([
      sub('s1', 'no_knowledge', [], { hitl_prompt: 'ignored', hitl_options: ['ignored'] }),
      sub('s2', 'needs_clarification', [A], { hitl_prompt: 'P', hitl_options: ['o'] }),
    ]);

    expect([result.route, result.hitlPrompt, result.hitlOptions]).toEqual(['clarify', 'P', ['o']]);
  });

  test('scope selection has priority over an earlier clarification', () => {
    const clarifyFirst = run([
      sub('s1', 'needs_clarification', [A], { hitl_prompt: 'P1' }),
      sub('s2', 'needs_scope_selection', [B], { hitl_prompt: 'P2' }),
    ]);
    expect([clarifyFirst.result.route, clarifyFirst.result.retrievalStatus]).toEqual([
      'scope_select',
      'needs_scope_selection',
    ]);
    // The prompts still follow sub-question order, not priority.
    expect(clarifyFirst.result.hitlPrompt).toBe('P1；P2');

    const clarifyOnly = run([
      sub('s1', 'needs_clarification', [A], { hitl_prompt: 'P1' }),
      sub('s2', 'needs_clarification', [B], { hitl_prompt: 'P2' }),
    ]);
    expect([clarifyOnly.result.route, clarifyOnly.result.retrievalStatus]).toEqual(['clarify', 'needs_clarification']);
  });

  test('sub HITL requests are ignored when any sub-question found evidence', () => {
    const { result, trace } = run([
      sub('s1', 'needs_scope_selection', [A], { hitl_prompt: 'P1', hitl_options: ['x'] }),
      sub('s2', 'partial', [B]),
    ]);

    expect([result.route, result.retrievalStatus]).toEqual(['answer', 'partial']);
    expect(trace).toMatchObject({ hitl_prompt: '', hitl_options: [] });
  });
});

describe('evidence merge (spec §4.10 steps 2–4)', () => {
  test('only answerable and partial subs contribute evidence, in sub-question order', () => {
    // A sub result's docs are already [] for the other statuses; the status filter holds even if they were not.
    const rewriteSub: SubResult = { ...sub('s2', 'needs_rewrite', [B]), docs: [B] };
    const { result } = run([sub('s1', 'partial', [C]), rewriteSub, sub('s3', 'answerable', [A])]);

    expect(result.docs.map((doc) => doc.chunk_id)).toEqual(['c', 'a']);
  });

  test('synthesis_merged_count counts the evidence before dedupe', () => {
    const A9 = { ...A, score: 0.9 };
    const { result, trace } = run([sub('s1', 'answerable', [A, B]), sub('s2', 'answerable', [A9, C])]);

    expect(result.mergedCount).toBe(4);
    expect(trace.synthesis_merged_count).toBe(4);
    expect(result.docs).toHaveLength(3);
  });

  test('rrf_rank is renumbered 1..n over the deduped list; the sub-agents\' chunks are not changed (DESIGN §4)', () => {
    const ranked = [chunk('x', { rrf_rank: 5 }), chunk('y', { rrf_rank: 7 }), chunk('z')];
    const { result, trace } = run([sub('s1', 'answerable', ranked.slice(0, 2)), sub('s2', 'answerable', ranked.slice(2))]);

    expect(result.docs.map((doc) => doc.rrf_rank)).toEqual([1, 2, 3]);
    expect(trace.retrieved_chunks?.map((doc) => doc.rrf_rank)).toEqual([1, 2, 3]);
    // The original renumbers the shared objects in place (spec §10.2); ragtime leaves them as produced.
    expect(ranked.map((doc) => doc.rrf_rank)).toEqual([5, 7, undefined]);
    expect(trace.sub_traces?.[0]?.retrieved_chunks?.map((doc) => doc.rrf_rank)).toEqual([5, 7]);
  });

  test('sub_agent_count counts every sub result, including failed ones and ones without a trace', () => {
    const withoutTrace: SubResult = { ...sub('s3', 'no_knowledge', []), rag_trace: null };
    const emptyTrace: SubResult = { ...sub('s4', 'no_knowledge', []), rag_trace: {} };
    const { trace } = run([sub('s1', 'answerable', [A]), sub('s2', 'no_knowledge', []), withoutTrace, emptyTrace]);

    expect(trace.sub_agent_count).toBe(4);
    // spec §4.10 step 6: only truthy sub-traces are normalized and kept.
    expect(trace.sub_traces?.map((subTrace) => subTrace.query)).toEqual(['s1', 's2']);
  });
});

describe('sub-trace normalization (spec §4.10 step 6, §5.2, §5.7 row 4)', () => {
  test('sub-traces are RagSubTraces: no complexity keys, no raw-only or unknown keys, runtime chunk keys stripped', () => {
    const raw = sub('s1', 'answerable', [A], {
      rewrite_count: 1,
      unknown_key: 'dropped',
      sub_traces: [{ query: 'nested' }],
    } as Partial<RawRagTrace>);

    const { trace } = run([raw]);

    const [subTrace] = trace.sub_traces ?? [];
    expect(keysOf(subTrace ?? {})).toEqual(keySet(SUB16, R23));
    expect(subTrace?.retrieved_chunks).toEqual([traced(A)]);
  });

  test('sub-trace values stay as the sub-question produced them, whatever synthesis merged (DESIGN §4, spec §10.2)', () => {
    const A9 = { ...A, score: 0.9 };
    const { result, trace } = run([sub('s1', 'answerable', [A]), sub('s2', 'answerable', [A9])]);

    expect(result.docs).toEqual([{ ...A, score: 0.9, rrf_rank: 1 }]);
    expect(trace.sub_traces?.[0]?.retrieved_chunks).toEqual([traced(A)]);
    expect(A.score).toBe(0.8);
  });
});

describe('dedupe_documents (spec §4.10 step 3, §6.5.2)', () => {
  test('U15 dedupe keeps first positions, folds duplicates by max score, keys by chunk id else filename|page|text', () => {
    const a8 = { chunk_id: 'a', filename: 'f', page_number: 1, text: 'a', score: 0.8 };
    const b = { chunk_id: 'b', filename: 'f', page_number: 1, text: 'b', score: 0.5 };
    const a9 = { chunk_id: 'a', filename: 'f', page_number: 1, text: 'a', score: 0.9 };
    const x1 = { chunk_id: '', filename: 'x', page_number: 1, text: 't', score: 0.1 };
    const x3 = { filename: 'x', page_number: 1, text: 't', score: 0.3 };

    expect(dedupeDocuments([a8, b, a9, x1, x3])).toEqual([{ ...a8, score: 0.9 }, b, { ...x1, score: 0.3 }]);

    // Mixed scales (spec §10.5): the kept item has a rerank score, the duplicate only a recall score → max of both.
    expect(dedupeDocuments([{ chunk_id: 'r', rerank_score: 0.2 }, { chunk_id: 'r', score: 0.7 }])).toEqual([
      { chunk_id: 'r', rerank_score: 0.7 },
    ]);
  });

  test('U15 mixed scale, other way round: a rerank-scored duplicate gives the kept item a rerank score', () => {
    // spec §6.5.2: "If the source or the target has a rerank_score → target.rerank_score := … incoming if absent".
    expect(dedupeDocuments([{ chunk_id: 'r', score: 0.7 }, { chunk_id: 'r', rerank_score: 0.2 }])).toEqual([
      { chunk_id: 'r', score: 0.7, rerank_score: 0.2 },
    ]);
  });

  test('chunk ids are trimmed; a missing key renders "None" in the fallback key', () => {
    expect(dedupeDocuments([{ chunk_id: ' a ', score: 0.1 }, { chunk_id: 'a', score: 0.4 }])).toEqual([
      { chunk_id: ' a ', score: 0.4 },
    ]);
    // Both keys are "x|None|t"; a page of 0 is a different key ("x|0|t").
    expect(
      dedupeDocuments([
        { filename: 'x', text: 't', score: 0.1 },
        { filename: 'x', text: 't', score: 0.2 },
        { filename: 'x', page_number: 0, text: 't', score: 0.3 },
      ]),
    ).toEqual([
      { filename: 'x', text: 't', score: 0.2 },
      { filename: 'x', page_number: 0, text: 't', score: 0.3 },
    ]);
  });

  test('a duplicate without any score changes nothing; no re-sorting; inputs are not mutated', () => {
    const low = { chunk_id: 'l', score: 0.1 };
    const high = { chunk_id: 'h', score: 0.9 };
    const first = { chunk_id: 'l', score: 0.1 };
    const out = dedupeDocuments([first, high, { chunk_id: 'l' }, { chunk_id: 'l', score: 0.5 }]);

    expect(out).toEqual([{ chunk_id: 'l', score: 0.5 }, high]);
    expect(first).toEqual(low);
  });

  test('empty input → empty output', () => {
    expect(dedupeDocuments([])).toEqual([]);
  });
});
