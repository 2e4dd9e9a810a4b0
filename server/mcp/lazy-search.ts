import type { FilterClause, MetadataFilters } from '../../core/retrieval/metadata-filter';
import type { EvidenceGrade } from '../../core/schemas/model-outputs';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { RetrievalResult } from '../../core/trace/writers';
import type { McpGrade, McpSearch } from './search-tool';

/** An in-process retriever on the configured stores (what `ragtime search` uses; the entry point builds it). */
export type OpenRetriever = () => {
  retrieve(query: string, kb?: string, scope?: { filters?: MetadataFilters; forced?: readonly FilterClause[] }): Promise<RetrievalResult>;
  grade?(query: string, docs: Chunk[]): Promise<EvidenceGrade>;
  close(): Promise<void>;
};

/**
 * search_knowledge's retrieval for `ragtime serve`, opened on first use: the stores' SDKs take a second to load and
 * the embedder is only needed once an agent searches. Searches the knowledge base the caller's scope chose.
 */
export function lazySearch(open: OpenRetriever, defaultKb: string): { search: McpSearch; grade: McpGrade; close(): Promise<void> } {
  let retriever: ReturnType<OpenRetriever> | undefined;
  return {
    async search(query, kb, filters, forced) {
      retriever ??= open();
      const name = kb ?? defaultKb;
      const scope = { ...(filters ? { filters } : {}), ...(forced && forced.length > 0 ? { forced } : {}) };
      return { kb: name, result: await retriever.retrieve(query, name, Object.keys(scope).length > 0 ? scope : undefined) };
    },
    grade: async (query, docs) => (await (retriever ??= open()).grade?.(query, docs)) ?? null,
    close: async () => retriever?.close(),
  };
}
