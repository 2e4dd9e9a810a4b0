import type { FastifyInstance } from 'fastify';

const ALLOWED_HEADERS = 'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id';

/**
 * CORS for /mcp, for browser MCP clients (RAGTIME_API_CORS_ORIGINS, as the API): the session id header is exposed,
 * so a page can read Mcp-Session-Id and send it back. Set by hand on this one path: @fastify/cors owns the
 * server-wide OPTIONS route already (registered for /api), and a second registration would collide with it.
 */
export function mcpCors(app: FastifyInstance, origins: readonly string[]): void {
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && origins.includes(origin);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!allowed(origin)) return;
    // Also on responses the MCP transport writes itself (hijacked): headers set here are sent with them.
    reply.raw.setHeader('access-control-allow-origin', origin);
    reply.raw.setHeader('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version');
    reply.raw.setHeader('vary', 'origin');
  });
  // A preflight carries no token: public, and answered only for allowed origins.
  app.options('/mcp', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    if (!allowed(request.headers.origin)) return reply.code(204).send();
    return reply
      .code(204)
      .header('access-control-allow-methods', 'GET, POST, DELETE')
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .send();
  });
}
