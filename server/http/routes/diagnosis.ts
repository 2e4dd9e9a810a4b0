import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RagError, describeZodError } from '../../../core/errors';
import { ApiError, SessionParams, SessionTrace, TraceQuery } from '../api-schemas';
import { notFound } from '../api-failure';
import { readerView } from '../reader-view';
import type { RouteDeps } from '../server-deps';

/** The Trace API (seed 004 §4.4, DESIGN §5 layer B): the persisted audit of a session, or of one run of it. */
export const diagnosisRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { auditStore, tenants, knowledge }) => {
  app.get('/api/diagnosis/:sessionId/trace', {
    schema: {
      summary: "A session's audit: runs, knowledge-tool invocations (retrievalDetails parsed) and timeline events",
      tags: ['diagnosis'],
      params: SessionParams,
      querystring: TraceQuery,
      response: { 200: SessionTrace, 400: ApiError, 401: ApiError, 404: ApiError, 503: ApiError },
    },
  }, async (request) => {
    const { sessionId } = request.params;
    const { runId } = request.query;
    if (!(await tenants.ownsSession(sessionId, request.tenant))) throw notFound('session', sessionId);
    const trace = await auditStore.sessionTrace(sessionId, runId === undefined ? undefined : { runId });
    if (runId !== undefined && trace.runs.length === 0 && trace.toolInvocations.length === 0 && trace.events.length === 0) {
      throw notFound('run', runId);
    }
    // The store is ours, but this is the edge where its rows become the published contract: check them.
    const parsed = SessionTrace.safeParse(trace);
    if (!parsed.success) throw new RagError('INTERNAL', describeZodError(`audit store returned an invalid trace for session "${sessionId}"`, parsed.error));
    return readerView(knowledge, tenants, request, parsed.data); // issue 44 §4
  });
};
