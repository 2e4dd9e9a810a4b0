import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsync } from 'fastify';
import type { RagClient } from '../../client/rag-client';
import type { KnowledgeApi } from '../http/server-deps';
import type { TenantDirectory } from '../http/tenant-directory';
import { createMcpServer } from './create-mcp-server';
import { tenantScope } from './mcp-scope';

export type McpHttpDeps = { rag: RagClient; tenants: TenantDirectory; workerCheck: () => Promise<void>; knowledge?: KnowledgeApi };

const notAllowed = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC requests to /mcp' }, id: null };

/**
 * The MCP tools over Streamable HTTP at POST /mcp (docs/MCP.md), behind the API's bearer tokens: the token's tenant
 * is the scope, so a tenant sees its own sessions, runs and knowledge bases only. Stateless (a server and transport
 * per request, JSON responses): any API node answers any request, and a run's state lives in Temporal, not here.
 * No server-to-client requests, so no elicitation: a waiting run comes back with its question and run id.
 */
export function mcpRoutes(deps: McpHttpDeps): FastifyPluginAsync {
  return async (app) => {
    // Not in /openapi.json: its body is JSON-RPC, described by MCP's own tools/list (docs/MCP.md), not by a schema here.
    app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
      const { knowledge } = deps;
      const server = createMcpServer({
        rag: deps.rag,
        scope: tenantScope(deps.rag, deps.tenants, request.tenant),
        workerCheck: deps.workerCheck,
        elicitation: false,
        ...(knowledge ? { kbStats: (kb: string) => knowledge.stats(kb) } : {}),
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      // The transport writes the response itself.
      reply.hijack();
      reply.raw.once('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    });
    // A stateless server has no stream to offer (GET) and no session to end (DELETE).
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({ method, url: '/mcp', schema: { hide: true }, handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(notAllowed) });
    }
  };
}
