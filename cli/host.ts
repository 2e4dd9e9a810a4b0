import type { DocumentMeta } from '../core/knowledge/document-meta';
import type { MetadataFilters } from '../core/retrieval/metadata-filter';
import type { SessionEraserDeps } from '../client/erase-session';
import type { TenantEraserDeps } from '../client/erase-tenant';
import type { AnswerStreamReader } from '../client/follow-answer';
import type { RagClient } from '../client/rag-client';
import type { CodecKeyring } from '../core/codec-keys';
import type { RagConfig } from '../core/config';
import type { CodecServerSettings } from '../core/observability-config';
import type { DoctorReport } from '../core/schemas/doctor';
import type { DocumentRecord, KbStats } from '../core/knowledge/knowledge-base';
import type { SessionTurn } from '../core/schemas/conversation';
import type { EvidenceGrade } from '../core/schemas/model-outputs';
import type { Chunk } from '../core/schemas/retrieved-chunk';
import type { RetrievalResult } from '../core/trace/writers';

/** What `ragtime kb` and `ragtime docs` do (activities/knowledge/knowledge-stores.ts implements it). */
export type KnowledgeAdmin = {
  list(): Promise<string[]>;
  create(kb: string): Promise<void>;
  drop(kb: string): Promise<void>;
  stats(kb: string): Promise<KbStats>;
  documents: { list(kb: string): Promise<DocumentRecord[]> };
  open(kb: string): Promise<unknown>;
  removeDocument(kb: string, docId: string): Promise<DocumentRecord>;
  /** `docs meta set|rm` (issue 44 §1): the metadata changed on the leaves and the record, nothing embedded. */
  changeDocumentMeta?(kb: string, docId: string, change: (meta: DocumentMeta) => DocumentMeta): Promise<DocumentRecord>;
  close(): Promise<void>;
};

/** What `ragtime mcp` gives the MCP server: defaults for runs, the worker check and the retrieval of search_knowledge. */
export type McpStdioOptions = {
  /** The session of runs whose tool call names none; absent: each such run is a conversation of its own. */
  defaultSession?: string;
  kbOf(requested: string | undefined): string | undefined;
  workerCheck(): Promise<void>;
  search?(query: string, kb: string | undefined, filters?: MetadataFilters): Promise<{ kb: string; result: RetrievalResult }>;
  kbStats?(kb: string): Promise<KbStats>;
  /** search_knowledge's relevance_level from the configured grader (null: none, and the scores decide). */
  grade?(query: string, docs: Chunk[]): Promise<EvidenceGrade | null>;
  /** The audit store that keeps a row per tool call (the worker's: audit.sqlite, or DATABASE_URL); none: not recorded. */
  audit?: { databaseUrl?: string | undefined; sqliteFile: string; includeContent: boolean };
};

/**
 * The turns of a session as the worker recorded them (issue 25 §1; activities/adapters/sql-session-turns.ts): read
 * by `ragtime chat` to show where a conversation stands. Tenant '' for the runs of the CLI.
 */
export type SessionTurnReader = {
  /** Oldest first; `last`: only the latest N. */
  turnsOf(tenant: string, sessionId: string, options?: { last?: number }): Promise<SessionTurn[]>;
  close(): Promise<void>;
};

/**
 * Which tenant owns a session: the HTTP API's rule (activities/adapters/sql-session-owners.ts), in the audit store's
 * database (audit.sqlite in the data dir, or DATABASE_URL), where `ragtime serve` reads it.
 */
export type SessionOwners = {
  /** Makes `tenant` the owner of a session nobody owns yet; resolves to the owner (`tenant`, or whoever owned it). */
  claim(sessionId: string, tenant: string): Promise<string>;
  /** True for a tenant `ragtime tenant purge` erased (issue 45 §2): its runs are refused until `tenant readmit`. */
  isPurged?(tenant: string): Promise<boolean>;
  close(): Promise<void>;
};

/** Something the command started that keeps running until it is closed (a server). */
export type RunningService = { url: string; banner: string; close(): Promise<void> };

/**
 * What the `ragtime` command runs that lives in other rooms: a worker (workers/), an in-process retriever
 * (workers/' adapters), the doctor's checks (workers/doctor/) and the servers (server/). The entry point
 * (bin/main.ts) supplies it, so cli/ imports none of those rooms, and each member loads its modules on first use:
 * `ask` does not pay for the SDKs of every store.
 */
/** The SQL stores that keep a session (the audit database: audit.sqlite in the data dir, or DATABASE_URL). */
export type SessionStores = Omit<SessionEraserDeps, 'temporal' | 'closeTimeoutMs'> & { close(): Promise<void> };

/**
 * The stores `ragtime tenant purge` erases (issue 45 §2): the audit database's (audit.sqlite or DATABASE_URL) and the
 * knowledge bases (Milvus and the parent store), in this process. The tenant's knowledge bases and tokens come from
 * the configuration, in cli/.
 */
export type TenantStores = Omit<TenantEraserDeps, 'temporal' | 'closeTimeoutMs' | 'deleteTimeoutMs' | 'knowledgeBasesOf' | 'tokensOf'> & {
  /** `ragtime tenant readmit`: its tokens are accepted again; false when it was not purged. */
  readmit(tenant: string): Promise<boolean>;
  close(): Promise<void>;
};

export type CliHost = {
  /** `ragtime worker`: runs until SIGINT/SIGTERM. */
  runWorker(config: RagConfig, options: { sdkLogLevel: 'INFO' | 'WARN'; allowMixedProviders: boolean }): Promise<void>;
  /** `ragtime search`: one retrieval with the configured stores, in this process. */
  openRetriever(config: RagConfig): {
    retrieve(query: string, kb?: string, scope?: { filters?: MetadataFilters }): Promise<RetrievalResult>;
    /** The configured grader (the worker's models) on evidence: what the MCP server's search_knowledge reports. */
    grade?(query: string, docs: Chunk[]): Promise<EvidenceGrade>;
    close(): Promise<void>;
  };
  /** `ragtime doctor`: one tiny call to every configured service and model endpoint (workers/doctor/), in this process. */
  runDoctor(config: RagConfig): Promise<DoctorReport>;
  /** `ragtime kb …` and `ragtime docs …`: the knowledge bases of the configured Milvus and SQL store, in this process. */
  openKnowledge(config: RagConfig): KnowledgeAdmin;
  /** `ragtime chat`: the session turn store the worker writes (audit.sqlite in the data dir, or DATABASE_URL), read only. */
  openSessionTurns(config: RagConfig): SessionTurnReader;
  /** `ragtime ask` and `chat` on a terminal: the side channel streaming answers are written to (issue 25 §2), read only. */
  openAnswerStream(config: RagConfig): AnswerStreamReader & { close(): Promise<void> };
  /** `ragtime sessions rm` (issue 35 §2): the stores that keep a session, in this process. */
  openSessionStores(config: RagConfig): SessionStores;
  /** `ragtime tenant purge` and `readmit` (issue 45 §2): every store that keeps something of a tenant, in this process. */
  openTenantStores(config: RagConfig): TenantStores;
  /** `ragtime ask` and `chat` with RAGTIME_TENANT (issue 45 §3): the session owners the API checks, in this process. */
  openSessionOwners(config: RagConfig): SessionOwners;
  /** `ragtime serve`: the HTTP API, listening when it resolves. */
  serveApi(config: RagConfig, rag: RagClient, options: { host: string; port: number; logLevel: 'info' | 'warn'; temporalUiUrl?: string }): Promise<RunningService>;
  /**
   * `ragtime mcp`: the MCP server (server/mcp/) over stdio on `rag`, in the local user's scope, until stdin closes.
   * With `search`, it offers search_knowledge through that in-process retrieval.
   */
  serveMcpStdio(rag: RagClient, options: McpStdioOptions): Promise<void>;
  /** `ragtime codec-server`: the payload codec for the Temporal UI. */
  serveCodec(keyring: CodecKeyring, settings: CodecServerSettings, options: { host: string; port: number }): Promise<RunningService>;
  /** `ragtime llm serve` (issue 34): the local model's OpenAI chat-completions API (server/llm/). */
  serveLocalLlm(options: { modelPath: string; modelName: string; host: string; port: number; threads: number; contextSize: number }): Promise<{ url: string; close(): Promise<void> }>;
};
