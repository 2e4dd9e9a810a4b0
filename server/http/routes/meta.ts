import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Health } from '../api-schemas';

/** Health and the OpenAPI document: public, since neither holds any tenant's data. */
export const metaRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', {
    config: { public: true },
    schema: { summary: 'Liveness: the HTTP server answers (it does not call Temporal)', tags: ['meta'], security: [], response: { 200: Health } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/openapi.json', {
    config: { public: true },
    schema: { summary: 'This API as an OpenAPI 3 document, generated from the zod schemas', tags: ['meta'], security: [], response: { 200: z.looseObject({}) } },
  }, async () => app.swagger() as unknown as Record<string, unknown>);
};
