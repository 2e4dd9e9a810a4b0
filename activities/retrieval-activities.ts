import { ApplicationFailure } from '@temporalio/common';
import { isRagError } from '../core/errors';
import { retrievalFragment } from '../core/trace/filter-fragment';
import type { RagActivities, RetrieveInput } from './contracts';
import type { Retriever } from './ports';

/**
 * The retrieve activity (spec §6.1): the retriever's docs and meta, and the R group as its trace fragment, from the
 * knowledge base the run names. A knowledge base that does not exist fails the run (UNKNOWN_KB, not retried);
 * infrastructure failures never throw (they are in the meta).
 */
export function retrievalActivities(retriever: Retriever): Pick<RagActivities, 'retrieve'> {
  return {
    async retrieve({ query, kb, docIds, filters, forced }: RetrieveInput) {
      try {
        // issue 44: the documents a person chose, the run's filters and the forced clauses, each only when given.
        const scope = { ...(docIds && docIds.length > 0 ? { docIds } : {}), ...(filters ? { filters } : {}), ...(forced && forced.length > 0 ? { forced } : {}) };
        const result = Object.keys(scope).length > 0 ? await retriever.retrieve(query, kb, scope) : await retriever.retrieve(query, kb);
        return { data: result, traceFragment: retrievalFragment(result) };
      } catch (error) {
        if (isRagError(error)) throw ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: error.terminal, cause: error });
        throw error;
      }
    },
  };
}
