import { RagError } from '../../../core/errors';
import { normalizeRagSubTrace, normalizeRagTrace } from '../../../core/trace/normalize';

describe('normalizeRagTrace (spec §5.6)', () => {
  test('T34 normalization drops nulls and unknown keys, keeps falsy values, filters chunks', () => {
    // Input and expected output are T34 of spec §9.
    const trace = {
      tool_used: true,
      query: 'q',
      rewrite_count: 1,
      evidence_confidence: null,
      hitl_prompt: '',
      hitl_options: [],
      auto_merge_applied: false,
      recall_count: 0,
      retrieved_chunks: [
        { id: 7, chunk_id: 'doc.pdf::p1::l3::0', filename: 'doc.pdf', page_number: 1, text: 't', score: 1, rrf_rank: 1, rerank_score: null },
        { filename: '', text: 'empty filename' },
        { text: 'no filename' },
        'notadict',
      ],
      initial_retrieved_chunks: null,
      sub_traces: null,
      unknown: 1,
    };
    expect(normalizeRagTrace(trace)).toEqual({
      tool_used: true,
      query: 'q',
      hitl_prompt: '',
      hitl_options: [],
      recall_count: 0,
      auto_merge_applied: false,
      retrieved_chunks: [{ filename: 'doc.pdf', page_number: 1, text: 't', score: 1, rrf_rank: 1 }],
      initial_retrieved_chunks: [],
      sub_traces: [],
    });
  });

  test('output keys follow the protocol declaration order', () => {
    const normalized = normalizeRagTrace({ route: 'answer', query: 'q', tool_used: true, sub_traces: [] });
    expect(Object.keys(normalized ?? {})).toEqual(['tool_used', 'query', 'route', 'sub_traces']);
  });

  test.each([
    ['null', null],
    ['an array', [{ query: 'q' }]],
    ['a string', 'trace'],
    ['an empty object', {}],
  ])('a non-dict or empty trace (%s) normalizes to null', (_name, input) => {
    expect(normalizeRagTrace(input)).toBeNull();
  });

  test('a dict of unknown keys only normalizes to {}', () => {
    expect(normalizeRagTrace({ rewrite_count: 1, foo: 'bar' })).toEqual({});
  });

  test.each([
    ['retrieved_chunks'],
    ['initial_retrieved_chunks'],
    ['rewrite_retrieved_chunks'],
    ['hitl_targeted_retrieved_chunks'],
  ])('%s: null or a non-list becomes [] (spec §10.4)', (field) => {
    expect(normalizeRagTrace({ [field]: null })).toEqual({ [field]: [] });
    expect(normalizeRagTrace({ [field]: 'x' })).toEqual({ [field]: [] });
    expect(normalizeRagTrace({ [field]: {} })).toEqual({ [field]: [] });
  });

  test('a chunk list that is absent stays absent', () => {
    expect(normalizeRagTrace({ query: 'q' })).toEqual({ query: 'q' });
  });

  test('chunks keep only the 6 protocol keys, without null values', () => {
    const chunk = {
      filename: 'a.md', page_number: 'iv', text: 'x', score: null, rrf_rank: 2, rerank_score: 0.5,
      chunk_id: 'c', parent_chunk_id: 'p', root_chunk_id: 'r', chunk_level: 3, chunk_idx: 4, file_type: 'md',
      file_path: '/x', merged_from_children: true, merged_child_count: 2, id: 1,
    };
    expect(normalizeRagTrace({ retrieved_chunks: [chunk] })).toEqual({
      retrieved_chunks: [{ filename: 'a.md', page_number: 'iv', text: 'x', rrf_rank: 2, rerank_score: 0.5 }],
    });
  });

  test('lax coercions as pydantic: integral float → int, numeric strings → numbers, bool spellings', () => {
    const normalized = normalizeRagTrace({
      candidate_k: 24.0, recall_count: '3', evidence_confidence: '0.5', rerank_min_score: 1, retrieval_empty: 'true',
      retrieved_chunks: [{ filename: 'a', rrf_rank: 1.0, score: '0.25' }],
    });
    expect(normalized).toEqual({
      candidate_k: 24, recall_count: 3, evidence_confidence: 0.5, rerank_min_score: 1, retrieval_empty: true,
      retrieved_chunks: [{ filename: 'a', rrf_rank: 1, score: 0.25 }],
    });
  });

  test.each([
    ['rrf_rank 1.5 in a chunk', { retrieved_chunks: [{ filename: 'a', rrf_rank: 1.5 }] }],
    ['a non-string truthy filename', { retrieved_chunks: [{ filename: 5 }] }],
    ['an unknown rewrite_method', { rewrite_method: 'paraphrase' }],
    ['a number where a string is expected', { query: 42 }],
    ['a string list holding a number', { missing_slots: ['a', 1] }],
  ])('a protocol violation (%s) raises INVALID_TRACE', (_name, input) => {
    expect(() => normalizeRagTrace(input)).toThrow(RagError);
    try {
      normalizeRagTrace(input);
    } catch (error) {
      expect((error as RagError).code).toBe('INVALID_TRACE');
    }
  });

  test('the error names the field and the rule', () => {
    expect(() => normalizeRagTrace({ rewrite_method: 'paraphrase' })).toThrowErrorMatchingInlineSnapshot(
      `"rag trace: ✖ Invalid option: expected one of "step_back"|"hyde" → at rewrite_method"`,
    );
  });

  describe('sub_traces (spec §5.6 step 4)', () => {
    test('each dict item is normalized as a sub-trace; nested sub_traces and unknown keys dropped', () => {
      const normalized = normalizeRagTrace({
        sub_traces: [
          { query: 'q1', sub_traces: [{ query: 'deep' }], rewrite_count: 1, retrieved_chunks: null },
          {},
          { only: 'unknown' },
          'notadict',
          null,
        ],
      });
      expect(normalized).toEqual({ sub_traces: [{ query: 'q1', retrieved_chunks: [] }, {}] });
    });

    test('a non-list sub_traces becomes []', () => {
      expect(normalizeRagTrace({ sub_traces: { query: 'x' } })).toEqual({ sub_traces: [] });
    });
  });

  describe('normalizeRagSubTrace', () => {
    test('empty dict → null, unknown-only dict → {}', () => {
      expect(normalizeRagSubTrace({})).toBeNull();
      expect(normalizeRagSubTrace({ x: 1 })).toEqual({});
    });

    test('drops sub_traces, which is not a RagSubTrace field', () => {
      expect(normalizeRagSubTrace({ query: 'q', sub_traces: [] })).toEqual({ query: 'q' });
    });
  });
});
