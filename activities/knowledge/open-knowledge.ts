import type { RagConfig } from '../../core/config';
import { createMilvusCatalog } from '../adapters/milvus-catalog';
import { createParentStore, type SqlParentStore } from '../adapters/sql-parent-store';
import type { Embedder } from '../ports';
import { createKnowledgeStores, type KnowledgeStores } from './knowledge-stores';

/**
 * Every knowledge base of the configured Milvus and SQL store (DESIGN §4b), wired in one place for the processes
 * that need them: the worker (workers/build-adapters.ts) and the HTTP API's document endpoints (server/). The parent
 * store is a SQLite file at `sqliteFile` unless DATABASE_URL is set.
 */
export function openKnowledgeStores(
  config: Pick<RagConfig, 'milvus' | 'database'> & { embeddings: Pick<RagConfig['embeddings'], 'dim'> },
  options: { sqliteFile: string; embedder: Embedder; namesInErrors?: boolean },
): { knowledge: KnowledgeStores; parents: SqlParentStore } {
  const catalog = createMilvusCatalog(
    { address: config.milvus.address, token: config.milvus.token, tls: config.milvus.tls, timeoutSeconds: config.milvus.timeoutSeconds },
    config.embeddings.dim,
  );
  const parents = createParentStore({ databaseUrl: config.database.url, sqliteFile: options.sqliteFile });
  const knowledge = createKnowledgeStores({
    defaultKb: config.milvus.collection,
    catalog,
    parentsFor: (kb) => parents.forKb(kb),
    documents: parents.documents,
    legacy: parents.legacy,
    embedder: options.embedder,
    close: () => parents.close(),
    namesInErrors: options.namesInErrors ?? false,
  });
  return { knowledge, parents };
}
