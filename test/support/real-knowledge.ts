import type { MilvusLeafStore } from '../../activities/adapters/milvus-leaf-store';
import type { SqlParentStore } from '../../activities/adapters/sql-parent-store';
import type { KnowledgeStores } from '../../activities/knowledge/knowledge-stores';
import { openKnowledgeStores } from '../../activities/knowledge/open-knowledge';
import type { Embedder, ParentStore } from '../../activities/ports';
import { services } from './services';

export type RealKnowledge = {
  knowledge: KnowledgeStores;
  parents: SqlParentStore;
  /** The default knowledge base's leaf store (its collection) and parent rows. */
  leafStore: MilvusLeafStore;
  parentStore: ParentStore;
  close(): Promise<void>;
};

/**
 * Knowledge stores on the real services, wired as a worker wires them (activities/knowledge/open-knowledge.ts): the
 * Milvus of the test services, a SQL parent store and document registry (a SQLite file, or PostgreSQL), and the
 * given embedder. `kb` is the default knowledge base.
 */
export function realKnowledge(options: { kb: string; sqliteFile: string; databaseUrl?: string; embedder: Embedder; milvusAddress?: string }): RealKnowledge {
  const config = {
    milvus: { address: options.milvusAddress ?? services.milvusAddress, collection: options.kb, timeoutSeconds: 30 },
    embeddings: { baseUrl: services.embeddingBaseUrl, model: services.embeddingModel, dim: services.embeddingDim },
    database: { url: options.databaseUrl, dataDir: '' },
  };
  const { knowledge, parents } = openKnowledgeStores(config, { sqliteFile: options.sqliteFile, embedder: options.embedder });
  return {
    knowledge,
    parents,
    leafStore: knowledge.leafStoreOf(options.kb) as MilvusLeafStore,
    parentStore: parents.forKb(options.kb),
    close: () => knowledge.close(),
  };
}
