import { createSessionEraser } from '../client/erase-session';
import { createAuditStore } from '../activities/adapters/sql-audit-store';
import { createSessionOwnerStore } from '../activities/adapters/sql-session-owners';
import { createSessionTurnStore } from '../activities/adapters/sql-session-turns';
import { createSyncPassStore } from '../activities/adapters/sql-sync-passes';
import { createAnswerStreamStore } from '../activities/adapters/sql-answer-stream';
import { openKnowledgeStores } from '../activities/knowledge/open-knowledge';
import { AesGcmCodec } from '../client/codec/aes-gcm-codec';
import type { RagClient } from '../client/rag-client';
import { assertWorkerPolling } from '../client/worker-check';
import { describeKeyring } from '../core/codec-keys';
import type { RagConfig } from '../core/config';
import type { DoctorReport } from '../core/schemas/doctor';
import { auditSqliteFileOf, sqliteFileOf } from '../runtime/data-files';
import { createCodecHandler } from './codec/codec-handler';
import { lazySearch, type OpenRetriever } from './mcp/lazy-search';
import { CONSOLE_DIST } from './http/console-assets';
import { createHttpServer } from './http/create-http-server';
import { createTenantDirectory } from './http/tenant-directory';
import { createTokenVerifier } from './http/token-auth';
import { listenError } from './listen-error';

const noEmbedding = async (): Promise<number[][]> => {
  throw new Error('the HTTP API does not embed; ingestion runs on the workers');
};

export type ServeApiOptions = {
  host: string;
  port: number;
  logLevel: 'info' | 'warn';
  /** The Temporal Web UI's base URL, for the run links of GET /api/runs/{id}/detail. */
  temporalUiUrl?: string;
  /** search_knowledge at /mcp (docs/MCP.md): the stores' retriever, opened on the first search; without it the tool is not offered. */
  openRetriever?: OpenRetriever;
  /** GET /api/doctor: the checks of `ragtime doctor` (they live in workers/, which server/ does not import); without it, 503. */
  runDoctor?: () => Promise<DoctorReport>;
};

export type RunningApi = {
  url: string;
  /** What it serves and against what, for the start-up output (no secrets). */
  banner: string;
  close(): Promise<void>;
};

/**
 * `ragtime serve` (docs/API.md): the HTTP API on the configured Temporal (through `rag`), audit store, session owners,
 * session turns and tokens, with the codec endpoint under /codec when keys are set. Listening when it resolves;
 * `close` stops it and closes the stores it opened (not `rag`, which its caller owns).
 */
export async function serveApi(config: RagConfig, rag: RagClient, options: ServeApiOptions): Promise<RunningApi> {
  // The session owners and the conversations' turns live in the audit store's database (audit.sqlite, or
  // DATABASE_URL), where the workers record the turns (workers/build-adapters.ts).
  const location = { databaseUrl: config.database.url, sqliteFile: auditSqliteFileOf(config) };
  const auditStore = createAuditStore({ ...location, includeContent: config.audit.includeContent });
  const owners = createSessionOwnerStore(location);
  const sessionTurns = createSessionTurnStore(location);
  // What the workers' answer writers stream (issue 25 §2), read for the progress stream's `answer` events.
  const answerStream = createAnswerStreamStore(location);
  // The synced sources' pass reports the workers keep (issue 46), for GET /api/sync/sources.
  const syncPasses = createSyncPassStore(location);
  // The document endpoints read and remove; they never embed (ingestion runs on the workers).
  const { knowledge } = openKnowledgeStores(config, {
    sqliteFile: sqliteFileOf(config),
    embedder: { model: config.embeddings.model, dim: config.embeddings.dim, embedQueries: noEmbedding, embedPassages: noEmbedding },
  });
  const mcpSearch = options.openRetriever ? lazySearch(options.openRetriever, config.milvus.collection) : undefined;
  const closeStores = async () => {
    await Promise.allSettled([auditStore.close(), owners.close(), sessionTurns.close(), answerStream.close(), syncPasses.close(), knowledge.close(), mcpSearch?.close()]);
  };
  try {
    // Migrate now, so an unreachable database is reported at start (naming the store), not at the first request.
    await Promise.all([auditStore.migrate(), owners.migrate(), sessionTurns.migrate(), answerStream.migrate()]);
    const tenants = createTenantDirectory({ tokens: config.api.tokens, operatorTokens: config.api.operatorTokens, owners, purged: owners, defaultKb: config.milvus.collection });
    const codecTokens = createTokenVerifier(config.codecServer.tokens.map((sha256) => ({ tenant: 'codec', sha256 })));
    const codecHandler =
      config.codec === null
        ? undefined
        : createCodecHandler(new AesGcmCodec(config.codec), {
            allowedOrigins: config.codecServer.allowedOrigins,
            // API tokens and the codec's own (RAGTIME_CODEC_TOKENS, e.g. the UI token of `make demo`) both decrypt.
            // A purged tenant's tokens decrypt nothing (issue 45 §2).
            authorize: async (token) => {
              const tenant = tenants.tenantOf(token);
              return (tenant !== null && !(await tenants.isPurged(tenant))) || codecTokens(token) !== null;
            },
          });
    const eraser = createSessionEraser({ temporal: rag.temporal, audit: auditStore, turns: sessionTurns, answerStream });
    const app = createHttpServer({
      rag,
      knowledge,
      auditStore,
      tenants,
      sessionTurns,
      answerStream,
      syncPasses,
      limits: { bodyLimitBytes: config.api.bodyLimitBytes },
      corsOrigins: config.api.corsOrigins,
      workerCheck: () => assertWorkerPolling(rag, config.temporal),
      ...(codecHandler ? { codecHandler } : {}),
      ...(mcpSearch ? { mcp: { search: mcpSearch.search, grade: mcpSearch.grade } } : {}),
      ...(options.runDoctor ? { doctor: options.runDoctor } : {}),
      eraseSession: (sessionId: string, tenant: string) => eraser.erase(sessionId, tenant),
      consoleRoot: CONSOLE_DIST,
      ...(options.temporalUiUrl ? { temporalUiUrl: options.temporalUiUrl } : {}),
      logger: { level: options.logLevel },
    });
    const url = await app.listen({ host: options.host, port: options.port }).catch((error: unknown) => {
      throw listenError(error, 'ragtime HTTP API', options.host, options.port, '--port or RAGTIME_API_PORT');
    });
    const tenantNames = [...new Set(config.api.tokens.map((token) => token.tenant))];
    const banner =
      `ragtime HTTP API: ${url}\n` +
      `  console:  ${url}/   (docs/CONSOLE.md)\n` +
      `  OpenAPI:  ${url}/openapi.json   (docs/API.md)\n` +
      `  tenants:  ${tenantNames.join(', ')} (${config.api.tokens.length} token${config.api.tokens.length === 1 ? '' : 's'})\n` +
      `  doctor:   ${config.api.operatorTokens.length === 0 ? "GET /api/doctor answers 404 to every token: make the operator's with `ragtime token new --operator`" : `GET /api/doctor for the operator's token${config.api.operatorTokens.length === 1 ? '' : 's'} (${config.api.operatorTokens.length})`}\n` +
      `  Temporal: ${config.temporal.address}, namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue}\n` +
      `  audit:    ${config.database.url ? 'PostgreSQL (DATABASE_URL)' : location.sqliteFile}\n` +
      `  codec:    ${config.codec === null ? 'off (no codec keys)' : `${url}/codec/encode, /codec/decode (keys ${describeKeyring(config.codec)})`}`;
    return {
      url,
      banner,
      async close() {
        try {
          await app.close();
        } finally {
          await closeStores();
        }
      },
    };
  } catch (error) {
    await closeStores();
    throw error;
  }
}
