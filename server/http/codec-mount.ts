import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { CodecHandler } from '../codec/codec-handler';

export type { CodecHandler } from '../codec/codec-handler';

/**
 * Mounts the payload codec's handler (server/codec/codec-handler.ts, Temporal's codec server protocol) under /codec:
 * POST /codec/encode and /codec/decode for tools that send `Authorization: Bearer`, and /codec/<token>/… for the
 * Temporal UI, which puts its token in the path. The handler does its own authentication (the HTTP API's tenant
 * tokens and the codec tokens), CORS for the UI's origin (preflights included) and validation, so these routes
 * skip the API's bearer hook. Requests are never logged: the UI's form carries a token in its path.
 */
export function codecRoutes(handler: CodecHandler, bodyLimit: number): FastifyPluginAsync {
  return async (app) => {
    const forward = async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await handler({ method: request.method, url: request.url, headers: request.headers, body: request.body });
      return reply.code(result.status).headers(result.headers).send(result.body);
    };
    const common = { bodyLimit, logLevel: 'silent' as const, config: { public: true }, handler: forward };
    for (const action of ['encode', 'decode'] as const) {
      const summary = `Payload codec: ${action} Temporal payloads (proto3 JSON {"payloads": [...]}); Authorization: Bearer <API or codec token>`;
      app.route({ ...common, method: 'POST', url: `/codec/${action}`, schema: { summary, tags: ['codec'] } });
      // CORS preflights, and the Temporal UI's form (--ui-codec-endpoint http://host:port/codec/<token>): not advertised.
      app.route({ ...common, method: 'OPTIONS', url: `/codec/${action}`, schema: { hide: true } });
      app.route({ ...common, method: ['POST', 'OPTIONS'], url: `/codec/:token/${action}`, schema: { hide: true } });
    }
  };
}
