import { performance } from 'node:perf_hooks';
import type { RagConfig } from '../core/config';
import { createJinaRerankTransport } from '../activities/adapters/jina-rerank-transport';
import { createOfflineChatModels } from '../activities/adapters/offline-chat-models';
import { createOpenAiEmbedder } from '../activities/adapters/openai-embedder';
import { createMeaningReader } from '../activities/adapters/meaning-reader';
import { selectChatModels, type ChatModelsChoice } from '../activities/adapters/select-chat-models';
import { createAuditStore, type SqlAuditStore } from '../activities/adapters/sql-audit-store';
import { createAnswerStreamStore, type AnswerStreamStore } from '../activities/adapters/sql-answer-stream';
import { createSessionTurnStore, type SessionTurnStore } from '../activities/adapters/sql-session-turns';
import { createSyncPassStore, type SyncPassStore } from '../activities/adapters/sql-sync-passes';
import { createKbRetriever } from '../activities/knowledge/kb-retriever';
import type { KnowledgeStores } from '../activities/knowledge/knowledge-stores';
import { openKnowledgeStores } from '../activities/knowledge/open-knowledge';
import type { Embedder, LeafStore, ParentStore, Retriever } from '../activities/ports';
import { auditSqliteFileOf, sqliteFileOf } from '../runtime/data-files';

export type Adapters = {
  chat: ChatModelsChoice;
  embedder: Embedder;
  /** Every knowledge base of the configured Milvus and SQL store (DESIGN §4b). */
  knowledge: KnowledgeStores;
  /** The default knowledge base's leaf store and parent rows (RAGTIME_KB), for start-up and tests. */
  leafStore: LeafStore;
  parentStore: ParentStore;
  /** Retrieval from the knowledge base a call names (default: RAGTIME_KB). */
  retriever: Retriever;
  /** Where the parent store lives, for start-up lines (no credentials). */
  parentStoreLocation: string;
  /** The audit store of DESIGN §5 layer B (recordAudit; the Trace API reads it). */
  audit: SqlAuditStore;
  /** Where the audit store lives and whether it keeps content, for start-up lines (no credentials). */
  auditLocation: string;
  /** The sessions' turns (issue 25 §1), in the audit store's database. */
  turns: SessionTurnStore;
  /** The side channel of streaming answers (issue 25 §2), in the same database. */
  answerStream: AnswerStreamStore;
  /** The reports of synced sources' passes (issue 46), in the same database. */
  syncPasses: SyncPassStore;
  close(): Promise<void>;
};

/** Builds every adapter from the configuration: the one place that decides what talks to what. */
export function buildAdapters(
  config: RagConfig,
  options: {
    onModelLearnt?: (line: string) => void;
    /** UNKNOWN_KB lists the knowledge bases that exist: for the operator's CLI only (activities/knowledge/knowledge-stores.ts). */
    namesInErrors?: boolean;
  } = {},
): Adapters {
  const { baseUrl, model, dim, msPerText, concurrency } = config.embeddings;
  const embedder = createOpenAiEmbedder({ baseUrl, model, dim, msPerText, concurrency });
  const defaultKb = config.milvus.collection;
  const { knowledge, parents } = openKnowledgeStores(config, { sqliteFile: sqliteFileOf(config), embedder, namesInErrors: options.namesInErrors });
  const audit = createAuditStore({
    databaseUrl: config.database.url,
    sqliteFile: auditSqliteFileOf(config),
    includeContent: config.audit.includeContent,
  });
  // Beside the audit tables: the store that already keeps session data (DESIGN §5), in its own table.
  const turns = createSessionTurnStore({ databaseUrl: config.database.url, sqliteFile: auditSqliteFileOf(config) });
  const answerStream = createAnswerStreamStore({ databaseUrl: config.database.url, sqliteFile: auditSqliteFileOf(config) });
  const syncPasses = createSyncPassStore({ databaseUrl: config.database.url, sqliteFile: auditSqliteFileOf(config) });
  const retriever = createKbRetriever(knowledge, { rerank: createJinaRerankTransport(), config, now: () => performance.now() });
  return {
    // The offline policy reads meaning with the same embedding model as retrieval (issue 42 §2).
    chat: selectChatModels(config, { offline: () => createOfflineChatModels({ meaning: createMeaningReader(embedder) }), openai: { onLearn: options.onModelLearnt } }),
    embedder,
    knowledge,
    leafStore: knowledge.leafStoreOf(defaultKb),
    parentStore: parents.forKb(defaultKb),
    retriever,
    parentStoreLocation: config.database.url ? 'PostgreSQL (DATABASE_URL)' : sqliteFileOf(config),
    audit,
    turns,
    answerStream,
    syncPasses,
    auditLocation:
      `${config.database.url ? 'PostgreSQL (DATABASE_URL)' : auditSqliteFileOf(config)}, ` +
      `content ${config.audit.includeContent ? 'kept (AUDIT_INCLUDE_CONTENT=true)' : 'not kept'}`,
    async close() {
      await Promise.allSettled([knowledge.close(), audit.close(), turns.close(), answerStream.close(), syncPasses.close()]);
    },
  };
}
