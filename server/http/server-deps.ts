import type { SessionErasure } from '../../client/erase-session';
import type { SessionTurnStore } from '../../activities/adapters/sql-session-turns';
import type { SyncPassStore } from '../../activities/adapters/sql-sync-passes';
import type { AnswerStreamReader } from '../../client/follow-answer';
import type { AuditStore } from '../../activities/ports';
import type { DocumentRecord, KbStats } from '../../core/knowledge/knowledge-base';
import type { DoctorReport } from '../../core/schemas/doctor';
import type { RagClient } from '../../client/rag-client';
import type { McpHttpOptions } from '../mcp/mcp-http-options';
import type { CodecHandler } from './codec-mount';
import type { TenantDirectory } from './tenant-directory';

export type HttpLimits = {
  /** Largest accepted request body (413 above it); RAGTIME_API_BODY_LIMIT_BYTES, default 64 KiB. */
  bodyLimitBytes: number;
  /** Largest body of a codec request (payload batches of a long history are large). Default 8 MiB, as `ragtime codec-server`. */
  codecBodyLimitBytes?: number;
  /** How often the progress stream asks the run for new steps. Default 500 ms. */
  progressPollMs?: number;
  /**
   * The progress stream asks the run only when its history grew since it last asked (a describe first, issue 47 §3).
   * Default true; false asks at every poll, as before (bench/sse-progress.ts compares the two).
   */
  progressAskOnChange?: boolean;
  /** How often the progress stream sends a heartbeat comment, so proxies keep the connection. Default 15 s. */
  heartbeatMs?: number;
  /**
   * How long `POST /api/runs` waits for a run's first outcome before it answers 202 with the run's id (the run goes
   * on; follow its progress). Bounds the answer when no live worker takes the run (issue 14 §3). Default 30 s.
   */
  askWaitMs?: number;
};

/** What the document endpoints need of the knowledge stores (activities/knowledge/knowledge-stores.ts has it). */
export type KnowledgeApi = {
  list(): Promise<string[]>;
  stats(kb: string): Promise<KbStats>;
  open(kb: string): Promise<unknown>;
  documents: { list(kb: string): Promise<DocumentRecord[]> };
  removeDocument(kb: string, docId: string): Promise<DocumentRecord>;
};

/** What GET /api/sessions/{id}/turns reads of the session turn store (activities/adapters/sql-session-turns.ts). */
export type SessionTurnReader = Pick<SessionTurnStore, 'turnsOf'>;

export type HttpServerOptions = {
  rag: RagClient;
  /** The knowledge bases and documents of GET /api/kbs…; without it those endpoints answer 503. */
  knowledge?: KnowledgeApi;
  auditStore: AuditStore;
  tenants: TenantDirectory;
  /** The conversations' turns (issue 25 §1) for GET /api/sessions/{id}/turns; without it that endpoint answers 503. */
  sessionTurns?: SessionTurnReader;
  /** The side channel of streaming answers (issue 25 §2): the progress stream's `answer` events; without it, none. */
  answerStream?: AnswerStreamReader;
  /** Synced sources' pass reports kept by the workers (issue 46), for GET /api/sync/sources when Temporal no longer has a pass. */
  syncPasses?: Pick<SyncPassStore, 'passesOf'>;
  limits: HttpLimits;
  /** The payload codec's handler (createCodecHandler), mounted at /codec/encode and /codec/decode when given. */
  codecHandler?: CodecHandler;
  /** Browser origins allowed to call the API (CORS; RAGTIME_API_CORS_ORIGINS). None by default. The codec routes answer CORS themselves. */
  corsOrigins?: string[];
  /**
   * Called before a run is started or answered; throws (e.g. SERVICE_UNAVAILABLE) when no worker would pick it up,
   * so a request fails at once instead of waiting forever. The CLI passes `assertWorkerPolling`.
   */
  workerCheck?: () => Promise<void>;
  /** New session ids for asks without one. Default: "api-" and a random UUID. */
  newSessionId?: () => string;
  /** The Temporal Web UI's base URL (e.g. http://127.0.0.1:8233), for the run links of GET /api/runs/{id}/detail. */
  temporalUiUrl?: string;
  /** The built console (console/dist) to serve at /; none when absent (the API alone). */
  consoleRoot?: string;
  /** The MCP endpoint at /mcp (docs/MCP.md): search_knowledge's retrieval, session bounds. */
  mcp?: McpHttpOptions;
  /** GET /api/doctor: the checks of `ragtime doctor` (workers/doctor/, injected by the entry point); without it, 503. */
  doctor?: () => Promise<DoctorReport>;
  /** DELETE /api/sessions/{id} (issue 35 §2): erases a session of the tenant from every store; without it, 503. */
  eraseSession?: (sessionId: string, tenant: string) => Promise<SessionErasure>;
  /** fastify's logger option: false (the default) for none, true or pino options to log requests. */
  logger?: boolean | { level: string };
};

/** What the route plugins receive. */
export type RouteDeps = Required<Pick<HttpServerOptions, 'rag' | 'auditStore' | 'tenants'>> & {
  knowledge?: KnowledgeApi;
  sessionTurns?: SessionTurnReader;
  answerStream?: AnswerStreamReader;
  syncPasses?: Pick<SyncPassStore, 'passesOf'>;
  doctor?: () => Promise<DoctorReport>;
  eraseSession?: (sessionId: string, tenant: string) => Promise<SessionErasure>;
  limits: Required<HttpLimits>;
  workerCheck: () => Promise<void>;
  newSessionId: () => string;
  temporalUiUrl?: string;
};
