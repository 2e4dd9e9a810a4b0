import { performance } from 'node:perf_hooks';
import type { RagConfig } from '../core/config';
import { createJinaRerankTransport } from '../activities/adapters/jina-rerank-transport';
import { createMilvusLeafStore } from '../activities/adapters/milvus-leaf-store';
import { createOfflineChatModels } from '../activities/adapters/offline-chat-models';
import { createOpenAiEmbedder } from '../activities/adapters/openai-embedder';
import { selectChatModels, type ChatModelsChoice } from '../activities/adapters/select-chat-models';
import { createAuditStore } from '../activities/adapters/sql-audit-store';
import { createParentStore } from '../activities/adapters/sql-parent-store';
import type { AuditStore, Embedder, LeafStore, ParentStore, Retriever } from '../activities/ports';
import { createRetriever } from '../activities/retrieval/retrieve-documents';
import { auditSqliteFileOf, sqliteFileOf } from '../runtime/data-files';

export type Adapters = {
  chat: ChatModelsChoice;
  embedder: Embedder;
  leafStore: LeafStore;
  parentStore: ParentStore;
  retriever: Retriever;
  /** Where the parent store lives, for start-up lines (no credentials). */
  parentStoreLocation: string;
  /** The audit store of DESIGN §5 layer B (recordAudit; the Trace API reads it). */
  audit: AuditStore;
  /** Where the audit store lives and whether it keeps content, for start-up lines (no credentials). */
  auditLocation: string;
  close(): Promise<void>;
};

/** Builds every adapter from the configuration: the one place that decides what talks to what. */
export function buildAdapters(config: RagConfig): Adapters {
  const embedder = createOpenAiEmbedder({ baseUrl: config.embeddings.baseUrl, model: config.embeddings.model, dim: config.embeddings.dim });
  const leafStore = createMilvusLeafStore({
    address: config.milvus.address,
    token: config.milvus.token,
    timeoutSeconds: config.milvus.timeoutSeconds,
    collection: config.milvus.collection,
    dim: config.embeddings.dim,
  });
  const parentStore = createParentStore({ databaseUrl: config.database.url, sqliteFile: sqliteFileOf(config) });
  const audit = createAuditStore({
    databaseUrl: config.database.url,
    sqliteFile: auditSqliteFileOf(config),
    includeContent: config.audit.includeContent,
  });
  const retriever = createRetriever({
    embedder,
    leafStore,
    parentStore,
    rerank: createJinaRerankTransport(),
    config,
    now: () => performance.now(),
  });
  return {
    chat: selectChatModels(config, { offline: createOfflineChatModels }),
    embedder,
    leafStore,
    parentStore,
    retriever,
    parentStoreLocation: config.database.url ? 'PostgreSQL (DATABASE_URL)' : sqliteFileOf(config),
    audit,
    auditLocation:
      `${config.database.url ? 'PostgreSQL (DATABASE_URL)' : auditSqliteFileOf(config)}, ` +
      `content ${config.audit.includeContent ? 'kept (AUDIT_INCLUDE_CONTENT=true)' : 'not kept'}`,
    async close() {
      await Promise.allSettled([leafStore.close(), parentStore.close(), audit.close()]);
    },
  };
}
