import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError, CancelBody, RunCancellation, RunParams } from '../api-schemas';
import { findOwnedRun } from '../run-access';
import type { RouteDeps } from '../server-deps';

/** How long the route waits for the cancelled run to close before it answers with status "running" (ms). */
const CLOSE_WAIT_MS = 5_000;

const errors = { 400: ApiError, 401: ApiError, 404: ApiError, 503: ApiError };

/**
 * Cancel a run (issue 43 §6): the run, its sub-questions and its model calls stop, and it ends CANCELLED. Checked
 * against the caller's tenant first, as every run route is: another tenant's run is 404 NOT_FOUND, and nothing is
 * cancelled. A run that has already ended is left as it is (200, `cancelled: false`).
 */
export const runCancelRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { rag, tenants }) => {
  app.post('/api/runs/:workflowId/cancel', {
    schema: {
      summary: 'Cancel a run: its sub-questions and model calls stop and it ends CANCELLED; an ended run is left as it is',
      tags: ['runs'],
      params: RunParams,
      body: CancelBody.nullish(), // no body: no reason
      response: { 200: RunCancellation, ...errors },
    },
  }, async (request) => {
    const { workflowId } = request.params;
    await findOwnedRun(rag, tenants, request.tenant, workflowId);
    return rag.cancelRun(workflowId, { ...(request.body?.reason ? { reason: request.body.reason } : {}), waitMs: CLOSE_WAIT_MS });
  });
};
