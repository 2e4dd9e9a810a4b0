import type { RetrievalResult } from './writers';
import { type TraceFragment, nonNullRetrievalMeta } from './fragment';

/**
 * A retrieval's trace fragment (spec §6.9's R group), with NexaRAG's `filters` and `effective_mode` when the retrieval
 * was filtered (issue 44 §2–§3): a run without filters writes exactly the R group, as before.
 */
export function retrievalFragment(result: Pick<RetrievalResult, 'meta' | 'diagnostics'>): TraceFragment {
  const filters = result.diagnostics?.filters;
  const filtered = filters ? { filters, effective_mode: result.diagnostics?.effective_mode ?? result.meta.retrieval_mode ?? null } : {};
  return { replacesRetrievalMeta: true, fields: { ...nonNullRetrievalMeta(result.meta), ...filtered } };
}
