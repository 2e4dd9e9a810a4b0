import { renderOutcome } from '../../../cli/render/outcome';
import type { RagOutcome } from '../../../core/schemas/run-io';

/* What `ragtime ask` prints about how the evidence was recalled (spec §6.1): a dense fallback is said, a hybrid recall is not. */

const outcomeRecalledBy = (mode: string) =>
  ({
    workflowId: 'rag-1',
    sessionId: 's-1',
    status: 'completed',
    route: 'answer',
    retrieval_status: 'success',
    rag_trace: { retrieval_mode: mode },
    docs: [],
    hitl: null,
    rounds: [],
    error: null,
    degraded: null,
    answer: null,
  }) as unknown as RagOutcome;

test('a run whose hybrid search failed says it answered from dense search alone', () => {
  expect(renderOutcome(outcomeRecalledBy('dense_fallback'), null)).toContain('  recall dense search alone: the hybrid search (dense + BM25) failed, so no keyword match was used');
});

test('a hybrid recall adds no recall line', () => {
  expect(renderOutcome(outcomeRecalledBy('hybrid'), null)).not.toContain('recall dense search alone');
});
