import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditStore } from '../../activities/ports';
import type { AnswerStreamReader } from '../../client/follow-answer';
import type { RagClient } from '../../client/rag-client';
import type { KnowledgeApi, SessionTurnReader } from '../http/server-deps';
import type { TenantDirectory } from '../http/tenant-directory';
import type { McpAuditSink } from './audit-tool-call';
import { createMcpServer } from './create-mcp-server';
import type { McpHttpOptions } from './mcp-http-options';
import { tenantScope } from './mcp-scope';
import { unreadable, visibleStats } from '../../core/knowledge/document-access';
import { McpSessions, type McpSession } from './mcp-sessions';
import { mcpCors } from './mcp-cors';

export type McpHttpDeps = {
  rag: RagClient;
  tenants: TenantDirectory;
  workerCheck: () => Promise<void>;
  auditStore?: AuditStore;
  knowledge?: KnowledgeApi;
  /** The side channel of streaming answers: ask_knowledge's progress notifications carry the answer as it is written. */
  answerStream?: AnswerStreamReader;
  /** The conversations' turns: ask_knowledge refuses a session holding an answer the token may not see (issue 44 §4). */
  sessionTurns?: SessionTurnReader;
  options?: McpHttpOptions;
  /** Browser origins allowed to call /mcp (the API's RAGTIME_API_CORS_ORIGINS). */
  corsOrigins?: string[];
};

/** The audit store's tool-call writer, when it has one. */
function auditSinkOf(store: AuditStore | undefined): McpAuditSink | undefined {
  const record = store?.recordMcpToolCall?.bind(store);
  return record ? { recordMcpToolCall: record } : undefined;
}

// JSON-RPC errors of the endpoint itself (before any session's server sees the message). A 404 tells an MCP client
// that its session is gone, so it starts a new one (MCP 2025-06-18, "Session Management").
const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });
const NO_SESSION = rpcError(-32001, 'Session not found: it was closed, or it is not yours; initialize a new one');
const NEEDS_INIT = rpcError(-32000, 'Bad Request: no Mcp-Session-Id header; start with an initialize request');
const FULL = rpcError(-32000, 'Too many open MCP sessions; retry later or DELETE unused ones');

const sessionIdOf = (request: FastifyRequest): string | undefined => {
  const header = request.headers['mcp-session-id'];
  return typeof header === 'string' && header !== '' ? header : undefined;
};

/**
 * The MCP tools over Streamable HTTP at /mcp (docs/MCP.md), behind the API's bearer tokens: the token's tenant is
 * the scope, so a tenant sees its own sessions, runs and knowledge bases only. Stateful: `initialize` opens a session
 * (Mcp-Session-Id) bound to the tenant whose token opened it, and its server lives until DELETE, an idle bound or
 * shutdown — so progress notifications and form elicitation reach the client on the call's SSE stream. A run's state
 * lives in Temporal, not in the session: a new session (or another API node) picks a run up with get_run.
 */
export function mcpRoutes(deps: McpHttpDeps): FastifyPluginAsync {
  return async (app) => {
    const sessions = new McpSessions(deps.options?.idleSessionMs, deps.options?.maxSessions);
    app.addHook('onClose', async () => sessions.closeAll());
    if (deps.corsOrigins && deps.corsOrigins.length > 0) mcpCors(app, deps.corsOrigins);

    // issue 44 §4: a session belongs to the tenant and the groups of the token that opened it; a token of the same
    // tenant with other groups does not find it (it would read with the opener's groups).
    const ownerOf = (request: FastifyRequest) => (request.groups.length === 0 ? request.tenant : `${request.tenant}\u0000${[...request.groups].sort().join('|')}`);

    function open(tenant: string, groups: readonly string[], owner: string): StreamableHTTPServerTransport {
      const audit = auditSinkOf(deps.auditStore);
      const { knowledge } = deps;
      const search = deps.options?.search;
      const grade = deps.options?.grade;
      const server = createMcpServer({
        rag: deps.rag,
        scope: tenantScope(deps.rag, deps.tenants, tenant, { groups, ...(knowledge ? { knowledge } : {}), ...(deps.sessionTurns ? { sessionTurns: deps.sessionTurns } : {}) }),
        workerCheck: deps.workerCheck,
        transport: 'http',
        ...(audit ? { audit } : {}),
        ...(deps.answerStream ? { answerStream: deps.answerStream } : {}),
        ...(search ? { search } : {}),
        ...(grade ? { grade } : {}),
        ...(knowledge ? { kbStats: async (kb: string) => visibleStats(await knowledge.stats(kb), unreadable(groups, await knowledge.documents.list(kb))) } : {}),
      });
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.add({ id, tenant: owner, server, transport }),
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
        void server.close();
      };
      void server.connect(transport);
      return transport;
    }

    /** Hands the request to the session's transport, which writes the response itself (JSON or an SSE stream). */
    async function serve(session: McpSession | StreamableHTTPServerTransport, request: FastifyRequest, reply: FastifyReply, body?: unknown) {
      const transport = session instanceof StreamableHTTPServerTransport ? session : session.transport;
      const done = session instanceof StreamableHTTPServerTransport ? () => undefined : sessions.use(session);
      reply.hijack();
      reply.raw.once('close', done);
      try {
        await transport.handleRequest(request.raw, reply.raw, body);
      } catch (error) {
        done();
        throw error;
      }
    }

    // Not in /openapi.json: its body is JSON-RPC, described by MCP's own tools/list (docs/MCP.md), not by a schema here.
    app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
      const id = sessionIdOf(request);
      if (id !== undefined) {
        const session = sessions.of(id, ownerOf(request));
        if (!session) return reply.code(404).send(NO_SESSION);
        return serve(session, request, reply, request.body);
      }
      if (!isInitializeRequest(request.body)) return reply.code(400).send(NEEDS_INIT);
      if (!sessions.hasRoom()) return reply.code(503).send(FULL);
      return serve(open(request.tenant, request.groups, ownerOf(request)), request, reply, request.body);
    });
    // GET: the session's stream for server messages outside a call; DELETE: ends the session (MCP "Session Management").
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: '/mcp',
        schema: { hide: true },
        handler: async (request, reply) => {
          const id = sessionIdOf(request);
          const session = id === undefined ? undefined : sessions.of(id, ownerOf(request));
          if (id === undefined) return reply.code(400).send(NEEDS_INIT);
          if (!session) return reply.code(404).send(NO_SESSION);
          // A GET stream stays open while the client listens; it does not count as activity (the idle bound applies).
          if (method === 'GET') {
            reply.hijack();
            await session.transport.handleRequest(request.raw, reply.raw);
            return;
          }
          return serve(session, request, reply);
        },
      });
    }
  };
}
