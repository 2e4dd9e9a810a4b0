import { EMBEDDING_FAILED, RETRIEVE_FAILED } from '../../../core/retrieval/retrieval-meta';
import { RetrievalHealth, retrievalFailure } from '../../../core/run/retrieval-health';
import type { RetrievalResult } from '../../../core/trace/writers';
import { chunk, metaM0 } from '../../support/scenario';

/* Issue 14 §2: which retrievals could not read the knowledge base, and what a run's outcome says of them. */

const failed = (reason: string, diagnostics?: Partial<NonNullable<RetrievalResult['diagnostics']>>): RetrievalResult => ({
  docs: [],
  meta: { ...metaM0(0), retrieval_mode: 'failed', rerank_error: reason } as RetrievalResult['meta'],
  ...(diagnostics ? { diagnostics: diagnostics as NonNullable<RetrievalResult['diagnostics']> } : {}),
});
const found: RetrievalResult = { docs: [chunk('x')], meta: metaM0(1) };
const empty: RetrievalResult = { docs: [], meta: metaM0(0) };

test('an empty retrieval that read the knowledge base is not a failure; failed ones name their component', () => {
  expect(retrievalFailure(found)).toBeNull();
  expect(retrievalFailure(empty)).toBeNull();
  expect(retrievalFailure(failed(EMBEDDING_FAILED, { embedding_error: 'ECONNREFUSED' }))).toEqual({ component: 'embeddings', reason: 'ECONNREFUSED' });
  expect(retrievalFailure(failed(RETRIEVE_FAILED, { attempts: [{ name: 'hybrid', candidate_count: 0, usable: false, top_score: null, duration_ms: 1, error: 'milvus gone' }] }))).toEqual({ component: 'knowledge_store', reason: 'milvus gone' });
  // Without diagnostics (histories recorded before them): the spec's reason text.
  expect(retrievalFailure(failed(RETRIEVE_FAILED))).toEqual({ component: 'knowledge_store', reason: RETRIEVE_FAILED });
});

test('the first failure is reported with the count of failed retrievals; a child\'s tally is adopted', () => {
  const health = new RetrievalHealth();
  health.note(found, 'initial');
  expect(health.degraded()).toBeNull();
  health.note(failed(EMBEDDING_FAILED, { embedding_error: 'first' }), 'rewritten');
  health.note(failed(RETRIEVE_FAILED), 'hitl_targeted');
  expect(health.degraded()).toEqual({ component: 'embeddings', reason: 'first', retrieval: 'rewritten', retrievals: 2, of: 3 });

  const parent = new RetrievalHealth();
  parent.adopt({ degraded: null, retrievals: 1 });
  parent.adopt(health.report());
  expect(parent.degraded()).toEqual({ component: 'embeddings', reason: 'first', retrieval: 'rewritten', retrievals: 2, of: 4 });
});
