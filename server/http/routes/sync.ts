import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { runSyncNow } from '../../../client/sync-schedule';
import { listSyncSources, syncSourceStatus, type SyncSourceStatus } from '../../../client/sync-status';
import { SyncProgressView, TenantSyncSources, type TenantSyncSource } from '../../../core/schemas/sync-source';
import { SyncPassReport } from '../../../core/sync/sync-io';
import { ApiError } from '../api-schemas';
import { ApiFailure } from '../api-failure';
import type { RouteDeps } from '../server-deps';

/*
 * Synced sources (issue 46 §2): each source with its settings, schedule, running pass (progress) and last pass, and
 * "run now". /api/sync/sources is the operator's: a source names a path on the workers' machines and writes into any
 * knowledge base. /api/sources is a tenant's (the console's Sources page): the sources that keep one of its knowledge
 * bases, without their path. The last pass is the one Temporal still holds, else the latest report the workers kept
 * in SQL.
 */

export const SyncSourceView = z.object({
  source: z.string(),
  scheduleId: z.string(),
  settings: z.record(z.string(), z.unknown()).describe('the pass input: path, kb, include, exclude, branch, maxDeleteShare, allowMassDelete'),
  every: z.string(),
  paused: z.boolean(),
  nextPassAt: z.string().nullable(),
  running: z.object({ workflowId: z.string(), progress: SyncProgressView.nullable() }).nullable(),
  lastPass: z.object({ workflowId: z.string(), report: SyncPassReport.nullable(), error: z.string().nullable() }).nullable(),
});

const SourceParams = z.object({ source: z.string().min(1).max(64) });

export const syncRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { rag, syncPasses, tenants }) => {
  /** Temporal's view, with the SQL store's last report when Temporal no longer holds the pass. */
  const view = async (source: string): Promise<SyncSourceStatus> => {
    const status = await syncSourceStatus(rag.temporal, source).catch((error: unknown) => {
      if ((error as { name?: string }).name === 'ScheduleNotFoundError') throw new ApiFailure(404, 'NOT_FOUND', `no synced source ${JSON.stringify(source)}`);
      throw error;
    });
    if (status.lastPass?.report || !syncPasses) return status;
    const [kept] = await syncPasses.passesOf(source, 1);
    return kept ? { ...status, lastPass: { workflowId: kept.workflow_id, report: kept, error: null } } : status;
  };

  app.get('/api/sync/sources', {
    config: { operator: true },
    schema: {
      summary: 'The synced sources with their schedule, running pass and last pass report. The operator\'s token only',
      tags: ['sync'],
      response: { 200: z.object({ sources: z.array(SyncSourceView) }), 401: ApiError, 404: ApiError },
    },
  }, async () => ({ sources: await Promise.all((await listSyncSources(rag.temporal)).map(view)) }));

  app.get('/api/sync/sources/:source', {
    config: { operator: true },
    schema: {
      summary: 'One synced source: settings, schedule, the running pass\'s progress, the last pass report. The operator\'s token only',
      tags: ['sync'],
      params: SourceParams,
      response: { 200: SyncSourceView, 401: ApiError, 404: ApiError },
    },
  }, async (request) => view(request.params.source));

  app.post('/api/sync/sources/:source/run', {
    config: { operator: true },
    schema: {
      summary: 'Start a pass now (after the running one, if any: passes of a source never overlap). The operator\'s token only',
      tags: ['sync'],
      params: SourceParams,
      response: { 202: z.object({ source: z.string(), started: z.literal(true) }), 401: ApiError, 404: ApiError },
    },
  }, async (request, reply) => {
    await view(request.params.source); // 404 for an unknown source
    await runSyncNow(rag.temporal, request.params.source);
    return reply.status(202).send({ source: request.params.source, started: true as const });
  });

  /** The sources of the tenant's knowledge bases (a source without a --kb writes the worker's default: operator only). */
  const tenantView = (status: SyncSourceStatus): TenantSyncSource => ({
    source: status.source,
    kb: status.settings.kb ?? '',
    kind: status.settings.branch === undefined ? 'folder' : 'git',
    ...(status.settings.branch === undefined ? {} : { branch: status.settings.branch }),
    every: status.every,
    paused: status.paused,
    nextPassAt: status.nextPassAt,
    running: status.running ? { progress: status.running.progress } : null,
    lastPass: status.lastPass ? { report: status.lastPass.report, error: status.lastPass.error } : null,
  });
  const tenantSources = async (tenant: string): Promise<SyncSourceStatus[]> => {
    const mine = new Set(tenants.kbsOf(tenant));
    const all = await Promise.all((await listSyncSources(rag.temporal)).map(view));
    return all.filter((status) => status.settings.kb !== undefined && mine.has(status.settings.kb));
  };

  app.get('/api/sources', {
    schema: {
      summary: 'The synced sources of the caller\'s knowledge bases: schedule, running pass and last pass report (no paths)',
      tags: ['sync'],
      response: { 200: TenantSyncSources, 401: ApiError },
    },
  }, async (request) => ({ sources: (await tenantSources(request.tenant)).map(tenantView) }));

  app.post('/api/sources/:source/run', {
    schema: {
      summary: 'Start a pass of a source of the caller\'s knowledge bases now (after the running one, if any)',
      tags: ['sync'],
      params: SourceParams,
      response: { 202: z.object({ source: z.string(), started: z.literal(true) }), 401: ApiError, 404: ApiError },
    },
  }, async (request, reply) => {
    const found = (await tenantSources(request.tenant)).some((status) => status.source === request.params.source);
    if (!found) throw new ApiFailure(404, 'NOT_FOUND', `no synced source ${JSON.stringify(request.params.source)}`);
    await runSyncNow(rag.temporal, request.params.source);
    return reply.status(202).send({ source: request.params.source, started: true as const });
  });
};
