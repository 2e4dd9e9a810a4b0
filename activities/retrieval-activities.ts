import { retrievalMetaFragment } from '../core/trace/writers';
import type { RagActivities, RetrieveInput } from './contracts';
import type { Retriever } from './ports';

/** The retrieve activity (spec §6.1): the retriever's docs and meta, and the R group as its trace fragment. */
export function retrievalActivities(retriever: Retriever): Pick<RagActivities, 'retrieve'> {
  return {
    async retrieve({ query }: RetrieveInput) {
      const result = await retriever.retrieve(query);
      return { data: result, traceFragment: retrievalMetaFragment(result.meta) };
    },
  };
}
