import type { Command } from 'commander';
import type * as AuditStoreAdapter from '../../activities/adapters/sql-audit-store';
import type * as SessionOwnersAdapter from '../../activities/adapters/sql-session-owners';
import type * as DataFiles from '../../runtime/data-files';
import { describeKeyring } from '../../core/codec-keys';
import { RagError } from '../../core/errors';
import { AesGcmCodec } from '../../client/codec/aes-gcm-codec';
import { createCodecHandler } from '../../server/codec/codec-handler';
import { createHttpServer } from '../../server/http/create-http-server';
import { createTenantDirectory } from '../../server/http/tenant-directory';
import { createTokenVerifier } from '../../server/http/token-auth';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { assertWorkerPolling } from '../../client/worker-check';

/** Resolves on SIGINT or SIGTERM. */
const untilStopped = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });

/** `ragtime serve`: the HTTP API of client/http (docs/API.md) on the configured Temporal, audit store and tokens. */
export function registerServe(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('serve')
    .description('serve the HTTP API (ask, answer, runs, progress, the Trace API; /openapi.json) until Ctrl-C')
    .option('--port <n>', 'port (default RAGTIME_API_PORT, 8280; 0 picks a free one)')
    .option('--host <host>', 'address to bind (default RAGTIME_API_HOST, 127.0.0.1)')
    .action(async (flags: { port?: string; host?: string }, command: Command) => {
      const { config } = context;
      const port = flags.port === undefined ? config.api.port : Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        console.error(`ragtime: INVALID_INPUT: --port ${flags.port} is not a port number (0-65535)`);
        setExit(EXIT.usage);
        return;
      }
      if (config.api.tokens.length === 0) {
        throw new RagError(
          'INVALID_CONFIG',
          'no API tokens are configured, so nobody could call the API: make one with `ragtime token new <tenant>` and set ' +
            'RAGTIME_API_TOKENS="<tenant>:<sha256>" (or RAGTIME_API_TOKENS_FILE)',
        );
      }
      const rag = await context.client();
      // The SQL adapters load kysely, pg and better-sqlite3: required here, so other commands start quickly.
      /* eslint-disable @typescript-eslint/no-require-imports */
      const { auditSqliteFileOf } = require('../../runtime/data-files') as typeof DataFiles;
      const { createAuditStore } = require('../../activities/adapters/sql-audit-store') as typeof AuditStoreAdapter;
      const { createSessionOwnerStore } = require('../../activities/adapters/sql-session-owners') as typeof SessionOwnersAdapter;
      /* eslint-enable @typescript-eslint/no-require-imports */
      // The session owners live in the audit store's database (audit.sqlite, or DATABASE_URL).
      const location = { databaseUrl: config.database.url, sqliteFile: auditSqliteFileOf(config) };
      const auditStore = createAuditStore({ ...location, includeContent: config.audit.includeContent });
      const owners = createSessionOwnerStore(location);
      try {
        // Migrate now, so an unreachable database is reported at start (naming the store), not at the first request.
        await Promise.all([auditStore.migrate(), owners.migrate()]);
        const tenants = createTenantDirectory({ tokens: config.api.tokens, owners });
        const codecTokens = createTokenVerifier(config.codecServer.tokens.map((sha256) => ({ tenant: 'codec', sha256 })));
        const codecHandler =
          config.codec === null
            ? undefined
            : createCodecHandler(new AesGcmCodec(config.codec), {
                allowedOrigins: config.codecServer.allowedOrigins,
                // API tokens and the codec's own (RAGTIME_CODEC_TOKENS, e.g. the UI token of `make demo`) both decrypt.
                authorize: (token) => tenants.tenantOf(token) !== null || codecTokens(token) !== null,
              });
        const app = createHttpServer({
          rag,
          auditStore,
          tenants,
          limits: { bodyLimitBytes: config.api.bodyLimitBytes },
          corsOrigins: config.api.corsOrigins,
          workerCheck: () => assertWorkerPolling(rag, config.temporal),
          ...(codecHandler ? { codecHandler } : {}),
          logger: { level: command.parent?.opts().verbose ? 'info' : 'warn' },
        });
        const url = await app.listen({ host: flags.host ?? config.api.host, port });
        const tenantNames = [...new Set(config.api.tokens.map((token) => token.tenant))];
        console.log(
          `ragtime HTTP API: ${url}\n` +
            `  OpenAPI:  ${url}/openapi.json   (docs/API.md)\n` +
            `  tenants:  ${tenantNames.join(', ')} (${config.api.tokens.length} token${config.api.tokens.length === 1 ? '' : 's'})\n` +
            `  Temporal: ${config.temporal.address}, namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue}\n` +
            `  audit:    ${config.database.url ? 'PostgreSQL (DATABASE_URL)' : location.sqliteFile}\n` +
            `  codec:    ${config.codec === null ? 'off (no codec keys)' : `${url}/codec/encode, /codec/decode (keys ${describeKeyring(config.codec)})`}`,
        );
        await untilStopped();
        await app.close();
      } finally {
        await Promise.allSettled([auditStore.close(), owners.close()]);
      }
    });
}
