import { mergeTraceFragments, nonNullRetrievalMeta } from '../../../core/trace/fragment';
import { RETRIEVAL_META_FIELDS } from '../../../core/schemas/rag-trace';

describe('trace fragment merging (DESIGN §2, §4)', () => {
  test('fields overwrite left to right; undefined is not written; null is kept as "written as None"', () => {
    const merged = mergeTraceFragments(
      { query: 'q', route: 'rewrite' },
      { fields: { route: 'answer', evidence_confidence: null, hitl_prompt: undefined } },
    );
    expect(merged).toEqual({ query: 'q', route: 'answer', evidence_confidence: null });
    expect('hitl_prompt' in merged).toBe(false);
  });

  test('a fragment that starts a trace discards the previous one', () => {
    expect(mergeTraceFragments({ query: 'old', route: 'x' }, { startsTrace: true, fields: { query: 'new' } })).toEqual({ query: 'new' });
  });

  test('a retrieval replaces the whole R group: no stale rerank_error or candidate_k_config_error survives', () => {
    const first = { rerank_error: 'HTTP 500: boom', candidate_k_config_error: 'invalid RETRIEVAL_CANDIDATE_K', rerank_model: 'm', candidate_k: 24, query: 'q' };
    const merged = mergeTraceFragments(first, { replacesRetrievalMeta: true, fields: { candidate_k: 30, retrieval_stage: 'rewritten' } });
    expect(merged).toEqual({ query: 'q', candidate_k: 30, retrieval_stage: 'rewritten' });
  });

  test('the input trace is not changed', () => {
    const trace = { query: 'q' };
    mergeTraceFragments(trace, { fields: { query: 'other' } });
    expect(trace).toEqual({ query: 'q' });
  });

  test('nonNullRetrievalMeta copies only R keys whose value is not null (spec §6.9)', () => {
    const meta = Object.fromEntries(RETRIEVAL_META_FIELDS.map((field) => [field, null]));
    expect(nonNullRetrievalMeta({ ...meta, rerank_endpoint: '', retrieval_empty: false, query: 'not R' })).toEqual({
      rerank_endpoint: '',
      retrieval_empty: false,
    });
  });
});
