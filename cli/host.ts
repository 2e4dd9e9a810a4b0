import type { RagClient } from '../client/rag-client';
import type { CodecKeyring } from '../core/codec-keys';
import type { RagConfig } from '../core/config';
import type { CodecServerSettings } from '../core/observability-config';
import type { DocumentRecord, KbStats } from '../core/knowledge/knowledge-base';
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
  close(): Promise<void>;
};

/** Something the command started that keeps running until it is closed (a server). */
export type RunningService = { url: string; banner: string; close(): Promise<void> };

/**
 * What the `ragtime` command runs that lives in other rooms: a worker (workers/), an in-process retriever
 * (workers/' adapters) and the servers (server/). The entry point (bin/main.ts) supplies it, so cli/ imports none of
 * those rooms, and each member loads its modules on first use: `ask` does not pay for the SDKs of every store.
 */
export type CliHost = {
  /** `ragtime worker`: runs until SIGINT/SIGTERM. */
  runWorker(config: RagConfig, options: { sdkLogLevel: 'INFO' | 'WARN' }): Promise<void>;
  /** `ragtime search`: one retrieval with the configured stores, in this process. */
  openRetriever(config: RagConfig): { retrieve(query: string, kb?: string): Promise<RetrievalResult>; close(): Promise<void> };
  /** `ragtime kb …` and `ragtime docs …`: the knowledge bases of the configured Milvus and SQL store, in this process. */
  openKnowledge(config: RagConfig): KnowledgeAdmin;
  /** `ragtime serve`: the HTTP API, listening when it resolves. */
  serveApi(config: RagConfig, rag: RagClient, options: { host: string; port: number; logLevel: 'info' | 'warn' }): Promise<RunningService>;
  /** `ragtime codec-server`: the payload codec for the Temporal UI. */
  serveCodec(keyring: CodecKeyring, settings: CodecServerSettings, options: { host: string; port: number }): Promise<RunningService>;
};
