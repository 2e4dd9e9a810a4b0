import { isRagError } from '../../core/errors';
import type { Retriever } from '../ports';
import { createRetriever, type RetrieverDeps } from '../retrieval/retrieve-documents';
import type { KnowledgeStores } from './knowledge-stores';

/**
 * The retriever of a worker that serves many knowledge bases (DESIGN §4b): each call opens the knowledge base it
 * names (UNKNOWN_KB when it does not exist) and retrieves from its leaf store and parent rows, with one
 * `retrieve_documents` (spec §6.1) per knowledge base, made on first use.
 */
export function createKbRetriever(knowledge: KnowledgeStores, deps: Omit<RetrieverDeps, 'embedder' | 'leafStore' | 'parentStore'>): Retriever {
  const retrievers = new Map<string, Retriever>();
  return {
    async retrieve(query, kb, scope) {
      // A name that is wrong (UNKNOWN_KB, INVALID_INPUT) is thrown; when the check cannot be made (Milvus down), the
      // retrieval runs anyway and reports the failure in its meta, as every infrastructure error (spec §6.1).
      const stores = await knowledge.open(kb).catch((error: unknown) => {
        if (isRagError(error) && (error.code === 'UNKNOWN_KB' || error.code === 'INVALID_INPUT')) throw error;
        return knowledge.uncheckedStores(kb);
      });
      let retriever = retrievers.get(stores.kb);
      if (!retriever) {
        const kbName = stores.kb;
        // issue 44 §2: metadata filters are decided on the registry's records of this knowledge base.
        const documents = { list: () => knowledge.documents.list(kbName) };
        retriever = createRetriever({ ...deps, embedder: knowledge.embedder, leafStore: stores.leafStore, parentStore: stores.parentStore, documents });
        retrievers.set(stores.kb, retriever);
      }
      return { ...(await retriever.retrieve(query, stores.kb, scope)), kb: stores.kb };
    },
  };
}
