import { z } from 'zod';
import { SyncPassReport } from '../sync/sync-io';

/*
 * A synced source as a tenant sees it (issue 46 §2: the console's Sources page, GET /api/sources): the sources that
 * keep one of the tenant's knowledge bases, with their schedule, running pass and last pass — but not the path on the
 * workers' machines, which only the operator reads (GET /api/sync/sources).
 */

export const SyncProgressView = z.object({
  stage: z.string(),
  commit: z.string().optional(),
  to_ingest: z.number(),
  ingested: z.number(),
  to_remove: z.number(),
  removed: z.number(),
  unchanged: z.number(),
  failed: z.number(),
  current: z.array(z.string()),
});

export const TenantSyncSource = z.object({
  source: z.string(),
  kb: z.string(),
  kind: z.enum(['folder', 'git']),
  branch: z.string().optional(),
  every: z.string(),
  paused: z.boolean(),
  nextPassAt: z.string().nullable(),
  running: z.object({ progress: SyncProgressView.nullable() }).nullable(),
  lastPass: z.object({ report: SyncPassReport.nullable(), error: z.string().nullable() }).nullable(),
});
export type TenantSyncSource = z.infer<typeof TenantSyncSource>;

export const TenantSyncSources = z.object({ sources: z.array(TenantSyncSource) });
export type TenantSyncSources = z.infer<typeof TenantSyncSources>;
