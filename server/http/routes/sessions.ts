import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError, SessionErasureReport, SessionParams, SessionTurns } from '../api-schemas';
import { ApiFailure, notFound } from '../api-failure';
import { visibleTurns } from '../reader-view';
import type { RouteDeps } from '../server-deps';

/**
 * A conversation's turns (issue 25 §1): what the console's conversation view shows when it opens a session, and what
 * a later run of the session reads. A session the caller does not own — another tenant's, or one nobody has asked in
 * yet — is 404, as on the Trace API: to a tenant, other tenants' sessions do not exist.
 */
export const sessionRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { rag, tenants, knowledge, sessionTurns, eraseSession }) => {
  app.get('/api/sessions/:sessionId/turns', {
    schema: {
      summary: "A session's completed turns, oldest first: question, standalone question, answer, route and run",
      tags: ['sessions'],
      params: SessionParams,
      response: { 200: SessionTurns, 400: ApiError, 401: ApiError, 404: ApiError, 503: ApiError },
    },
  }, async (request) => {
    const { sessionId } = request.params;
    if (!(await tenants.ownsSession(sessionId, request.tenant))) throw notFound('session', sessionId);
    if (!sessionTurns) throw new ApiFailure(503, 'SERVICE_UNAVAILABLE', 'this server was started without the session turn store; conversations cannot be read here');
    // Keyed by tenant as well: the store never returns turns recorded under another tenant, whatever the session id.
    // issue 44 §4: an answer written from evidence the token may not read is withheld (null).
    return { sessionId, turns: (await visibleTurns({ rag, knowledge, tenants, sessionTurns }, request, sessionId)).turns };
  });

  app.delete('/api/sessions/:sessionId', {
    schema: {
      summary: "Erase one of the caller's sessions from every store: its runs (cancelled first when open) and their histories, turns, audit rows and streamed answers",
      tags: ['sessions'],
      params: SessionParams,
      response: { 200: SessionErasureReport, 400: ApiError, 401: ApiError, 404: ApiError, 503: ApiError },
    },
  }, async (request) => {
    const { sessionId } = request.params;
    // The owner row outlives the erasure (an id without content), so a second call by its tenant succeeds with zeros.
    if (!(await tenants.ownsSession(sessionId, request.tenant))) throw notFound('session', sessionId);
    if (!eraseSession) throw new ApiFailure(503, 'SERVICE_UNAVAILABLE', 'this server was started without the erasure of sessions; run `ragtime sessions rm` where the stores are');
    return eraseSession(sessionId, request.tenant);
  });
};
