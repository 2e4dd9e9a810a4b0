import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, DoctorReport } from '../api-schemas';
import { ApiFailure } from '../api-failure';
import type { RouteDeps } from '../server-deps';

/**
 * GET /api/doctor (issue 24 §3): the checks of `ragtime doctor`, run by this server's process against its
 * configuration. 200 when every check passed, 503 with the same report when one did not, so a load balancer or a
 * monitor reads the status and a person reads the lines. Requests that arrive while a run is in flight share it: a
 * probe calls every model once, and a busy monitor must not multiply that.
 */
export const doctorRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { doctor }) => {
  let inFlight: Promise<DoctorReport> | null = null;
  app.get('/api/doctor', {
    config: { operator: true },
    schema: {
      summary: "Check every configured service and model endpoint with one tiny call each; 503 when one fails. The operator's token only (a tenant's gets 404)",
      tags: ['meta'],
      response: { 200: DoctorReport, 401: ApiError, 404: ApiError, 503: z.union([DoctorReport, ApiError]) },
    },
  }, async (_request, reply) => {
    if (!doctor) throw new ApiFailure(503, 'SERVICE_UNAVAILABLE', 'this server was started without the doctor\'s checks; run `ragtime doctor` where it runs');
    inFlight ??= doctor().finally(() => {
      inFlight = null;
    });
    const report = await inFlight;
    return reply.status(report.ok ? 200 : 503).send(report);
  });
};
