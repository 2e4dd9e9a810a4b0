import { randomUUID } from 'node:crypto';
import fastifyCors from '@fastify/cors';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, validatorCompiler } from 'fastify-type-provider-zod';
import { CODEC_BODY_LIMIT_BYTES } from '../codec/codec-server';
import { mcpRoutes } from '../mcp/mount-mcp-http';
import { installBearerAuth } from './bearer-auth';
import { codecRoutes } from './codec-mount';
import { consoleAssets } from './console-assets';
import { installErrorHandlers } from './error-handler';
import { clientErrorHandler, installHostCheck, routerErrorHandler } from './protocol-errors';
import { diagnosisRoutes } from './routes/diagnosis';
import { doctorRoutes } from './routes/doctor';
import { knowledgeRoutes } from './routes/knowledge';
import { metaRoutes } from './routes/meta';
import { progressRoutes } from './routes/progress';
import { runCancelRoutes } from './routes/run-cancel';
import { runHistoryRoutes } from './routes/run-history';
import { runRoutes } from './routes/runs';
import { sessionRoutes } from './routes/sessions';
import { syncRoutes } from './routes/sync';
import type { HttpServerOptions, RouteDeps } from './server-deps';

export type { HttpLimits, HttpServerOptions } from './server-deps';

const DEFAULTS = { codecBodyLimitBytes: CODEC_BODY_LIMIT_BYTES, progressPollMs: 500, progressAskOnChange: true, heartbeatMs: 15_000, askWaitMs: 30_000 };
// Fastify's default of 100 would turn a long id into a bare 404; a larger bound lets zod explain the real limit.
const MAX_PARAM_LENGTH = 1024;

/**
 * The HTTP API of `ragtime serve` (issue 6 §2): ask and answer runs, read outcomes, traces and live progress, and the
 * Trace API, for tenants identified by bearer tokens. Returns the fastify instance unstarted: call `listen`, or
 * `inject` in tests. It closes nothing it was given (client, stores): their owner does.
 *
 * @example
 * const app = createHttpServer({ rag, auditStore, tenants, limits: { bodyLimitBytes: 64 * 1024 } });
 * await app.listen({ host: '127.0.0.1', port: 8280 });
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const limits = { ...DEFAULTS, ...options.limits };
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: limits.bodyLimitBytes,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Requests that never reach a route get the API's error shape too (protocol-errors.ts), not fastify's or Node's.
    frameworkErrors: routerErrorHandler(options.tenants, MAX_PARAM_LENGTH),
    clientErrorHandler,
    // Node would answer a missing Host with a bodiless 400 of its own; installHostCheck answers it instead.
    http: { requireHostHeader: false },
    // Open event streams must not keep `close()` waiting.
    forceCloseConnections: true,
  });
  app.setValidatorCompiler(validatorCompiler);
  // Responses are values already parsed at their own edge (workflow queries typed by core/ schemas, the audit
  // store's checked SessionTrace). The zod serializer would re-encode them, which fails on RagTrace's lax number
  // fields (transforms cannot be encoded), so the schemas document responses and the tests parse them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installErrorHandlers(app, limits.bodyLimitBytes);
  // Before the bearer check: a request without Host is malformed whoever sends it.
  installHostCheck(app);
  installBearerAuth(app, options.tenants);

  void app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'ragtime HTTP API', version: '1.0.0', description: 'Ask and answer ragtime runs, read outcomes, traces, progress and the audit (Trace API). See docs/API.md.' },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
    },
    transform: jsonSchemaTransform,
  });

  const deps: RouteDeps = {
    rag: options.rag,
    auditStore: options.auditStore,
    tenants: options.tenants,
    ...(options.knowledge ? { knowledge: options.knowledge } : {}),
    ...(options.sessionTurns ? { sessionTurns: options.sessionTurns } : {}),
    ...(options.answerStream ? { answerStream: options.answerStream } : {}),
    ...(options.syncPasses ? { syncPasses: options.syncPasses } : {}),
    ...(options.doctor ? { doctor: options.doctor } : {}),
    ...(options.eraseSession ? { eraseSession: options.eraseSession } : {}),
    limits,
    workerCheck: options.workerCheck ?? (async () => undefined),
    newSessionId: options.newSessionId ?? (() => `api-${randomUUID()}`),
    ...(options.temporalUiUrl ? { temporalUiUrl: options.temporalUiUrl } : {}),
  };
  void app.register(metaRoutes);
  void app.register(async (api) => {
    // The API reads JSON only: fastify's text/plain parser would hand a string to the body schema (→ a 400 about
    // types) where docs/API.md promises 415. The codec routes keep it, as `ragtime codec-server` takes any text.
    api.removeContentTypeParser('text/plain');
    // CORS for browser apps on other origins, for the API routes only: the codec routes answer CORS themselves.
    if (options.corsOrigins !== undefined && options.corsOrigins.length > 0) {
      await api.register(fastifyCors, { origin: options.corsOrigins, methods: ['GET', 'POST', 'DELETE'], allowedHeaders: ['authorization', 'content-type', 'last-event-id'] });
    }
    await api.register(runRoutes, deps);
    await api.register(runHistoryRoutes, deps);
    await api.register(runCancelRoutes, deps);
    await api.register(progressRoutes, deps);
    await api.register(diagnosisRoutes, deps);
    await api.register(sessionRoutes, deps);
    await api.register(knowledgeRoutes, deps);
    await api.register(doctorRoutes, deps);
    await api.register(syncRoutes, deps);
  });
  // MCP over Streamable HTTP (docs/MCP.md): the same tokens and tenants as the API.
  void app.register(
    mcpRoutes({
      rag: deps.rag,
      tenants: deps.tenants,
      workerCheck: deps.workerCheck,
      auditStore: deps.auditStore,
      ...(deps.knowledge ? { knowledge: deps.knowledge } : {}),
      ...(deps.answerStream ? { answerStream: deps.answerStream } : {}),
      ...(deps.sessionTurns ? { sessionTurns: deps.sessionTurns } : {}),
      ...(options.mcp ? { options: options.mcp } : {}),
      ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    }),
  );
  if (options.codecHandler !== undefined) void app.register(codecRoutes(options.codecHandler, limits.codecBodyLimitBytes));
  // The web console's built files at / and /assets/* (console/README.md): public, cached by hash, under a strict CSP.
  if (options.consoleRoot !== undefined) void app.register(consoleAssets(options.consoleRoot));
  return app;
}
