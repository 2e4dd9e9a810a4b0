import type { RetrievalResult } from '../trace/writers';
import type { QuestionResult } from './evaluate-question';
import { goldRank } from './evaluate-question';
import type { GoldenQuestion } from './golden-set';

/*
 * Failure attribution (DESIGN §5C, after NexaRAG's "which layer lost the evidence"): for a question the run got
 * wrong, the first layer of the pipeline that lost it, read from the trace and the retrieval diagnostics the run
 * recorded. Retrieval layers in pipeline order — recall (no leg found a gold document), fusion (a leg had it, the
 * fused list did not), auto-merge, rerank or the top-k cut, the min-score threshold — then grading (the evidence
 * was there, the route was wrong; or an unanswerable question was answered) and the answer (answered, gold span
 * absent). The diagnostics list 10 items per stage, so "fusion" also covers a gold chunk fused below rank 10.
 * Before recall: the question's metadata filter (issue 44 §2), when every gold document fails it ("filter too narrow").
 */

export const ATTRIBUTION_LAYERS = ['run_failed', 'filter', 'recall', 'fusion', 'auto_merge', 'rerank', 'top_k', 'threshold', 'grading', 'answer'] as const;
export type AttributionLayer = (typeof ATTRIBUTION_LAYERS)[number];
export type Attribution = { layer: AttributionLayer; detail: string };

const show = (rank: number | null) => (rank === null ? '–' : String(rank));

/** Where a gold document was lost in one retrieval, or null when its final evidence holds one. */
export function retrievalLoss(retrieval: RetrievalResult | undefined, gold: ReadonlySet<string>): Attribution | null {
  if (!retrieval) return { layer: 'recall', detail: 'no retrieval ran' };
  if (goldRank(retrieval.docs, gold) !== null) return null;
  const d = retrieval.diagnostics;
  const dense = goldRank(d?.legs.dense ?? d?.legs.dense_fallback, gold);
  const bm25 = goldRank(d?.legs.bm25, gold);
  if (dense === null && bm25 === null) {
    return { layer: 'recall', detail: `no leg recalled a gold document in its top 10 (dense and BM25); mode ${retrieval.meta.retrieval_mode ?? '-'}` };
  }
  const fused = goldRank(d?.fused, gold);
  if (fused === null) return { layer: 'fusion', detail: `dense rank ${show(dense)}, BM25 rank ${show(bm25)}: not in the fused top 10 (RRF)` };
  const mergedAway = (d?.merge_groups ?? []).some((group) => group.child_chunk_ids.some((id) => goldRank([{ chunk_id: id }], gold) !== null));
  if (mergedAway) return { layer: 'auto_merge', detail: `fused rank ${fused}: its chunks were merged into a parent that did not reach the evidence` };
  const meta = retrieval.meta as Record<string, unknown>;
  if (meta.rerank_applied === true) return { layer: 'rerank', detail: `fused rank ${fused}: the reranker moved it out of the top ${String(meta.retrieval_top_k ?? '')}` };
  const postRerank = Number(meta.post_rerank_count ?? 0);
  const postThreshold = Number(meta.post_threshold_count ?? 0);
  if (postThreshold < postRerank) return { layer: 'threshold', detail: `fused rank ${fused}: the min-score threshold kept ${postThreshold} of ${postRerank}` };
  return { layer: 'top_k', detail: `fused rank ${fused}: below the top ${String(meta.retrieval_top_k ?? '')} kept after merging` };
}

/** The first layer that lost a question the run got wrong; null when it got it right. */
export function attributeMiss(question: GoldenQuestion, result: QuestionResult, lastRetrieval: RetrievalResult | undefined, filteredOut: readonly string[] = []): Attribution | null {
  if (result.error !== null) return { layer: 'run_failed', detail: result.error };
  const wrongAnswer = result.route === 'answer' && result.answer_contains_gold === false;
  if (result.route_correct && !wrongAnswer) return null;
  if (question.expected_route !== undefined || !question.answerable) {
    const why = question.answerable ? `expected ${question.expected_route ?? 'answer'}` : 'the documents do not hold the answer';
    return { layer: 'grading', detail: `route ${result.route ?? '-'}; ${why}` };
  }
  const goldRetrieved = lastRetrieval !== undefined && goldRank(lastRetrieval.docs, new Set(question.gold_doc_ids)) !== null;
  // Issue 44 §2: the question's filters left out the gold document(s): no layer after the filter could find them.
  if (!goldRetrieved && filteredOut.length > 0 && filteredOut.length === question.gold_doc_ids.length) {
    return { layer: 'filter', detail: `filter too narrow: the gold document${filteredOut.length > 1 ? 's' : ''} ${filteredOut.join(', ')} do${filteredOut.length > 1 ? '' : 'es'} not match it` };
  }
  const loss = retrievalLoss(lastRetrieval, new Set(question.gold_doc_ids));
  if (loss) return loss;
  if (!result.route_correct) return { layer: 'grading', detail: `gold evidence retrieved, route ${result.route ?? '-'} (${result.retrieval_status ?? '-'})` };
  return { layer: 'answer', detail: 'answered from gold evidence, but no gold answer span in the answer' };
}
