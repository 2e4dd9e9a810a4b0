import { z } from 'zod';
import { KbName } from '../knowledge/knowledge-base';

/*
 * Synced sources (issue 46): a folder, or a git work tree read at a branch's head, kept in step with a knowledge base
 * by a Temporal Schedule. Each pass of the schedule is one syncPassWorkflow run; these are its input, its progress
 * and its report. A source's documents are those whose id starts with `<source>/`: the pass owns them, and nothing else.
 */

/** A source's name: it prefixes its documents' ids and names its schedule. */
export const SyncSourceName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a source name holds letters, digits, ".", "_" and "-" (at most 64), and starts with a letter or digit');
export type SyncSourceName = z.infer<typeof SyncSourceName>;

/** A pass refuses to remove more than this share of the source's documents unless allowed (issue 46 §3). */
export const DEFAULT_MAX_DELETE_SHARE = 0.5;
/** How often a source is synced unless `--every` says otherwise. */
export const DEFAULT_SYNC_EVERY = '10m';

export const SyncPassInput = z.object({
  source: SyncSourceName,
  /** The folder or git work tree, absolute. */
  path: z.string().trim().min(1).refine((p) => p.startsWith('/'), { message: 'must be an absolute path' }),
  /** The knowledge base kept; absent: the worker's default (RAGTIME_KB). */
  kb: KbName.optional(),
  /** Globs over paths relative to the source ("**" crosses folders); none: every supported file. */
  include: z.array(z.string().trim().min(1)).default([]),
  exclude: z.array(z.string().trim().min(1)).default([]),
  /** A git work tree read at this branch's head commit; absent: a plain folder read as it is on disk. */
  branch: z.string().trim().min(1).optional(),
  maxDeleteShare: z.number().min(0).max(1).default(DEFAULT_MAX_DELETE_SHARE),
  allowMassDelete: z.boolean().default(false),
  /** Files ingested at once. */
  concurrency: z.number().int().min(1).max(16).default(2),
});
export type SyncPassInput = z.input<typeof SyncPassInput>;
export type SyncPassSettings = z.output<typeof SyncPassInput>;

/** The schedule of a source; its passes' workflow ids start with it. */
export const syncScheduleId = (source: string): string => `ragtime-sync-${source}`;
/** The document id of a file of a source: `<source>/<path relative to the source>`. */
export const syncDocumentId = (source: string, relativePath: string): string => `${source}/${relativePath}`;
/** The relative path of a source's document id, or null when the id is not the source's. */
export function syncPathOf(source: string, docId: string): string | null {
  return docId.startsWith(`${source}/`) ? docId.slice(source.length + 1) : null;
}

/** One file of a source as a pass lists it: its path relative to the source and the sha256 of its bytes. */
export type ListedFile = { path: string; hash: string };

/** A file that failed in a pass: reported, and tried again by the next pass. */
export const SyncFailure = z.object({ path: z.string(), type: z.string(), message: z.string() });
export type SyncFailure = z.infer<typeof SyncFailure>;

/** What a pass did (issue 46 §1): counts of files, leaves embedded and kept, the time it took, the commit it read. */
export const SyncPassReport = z.object({
  source: z.string(),
  kb: z.string(),
  kind: z.enum(['folder', 'git']),
  /** The commit read (git sources). */
  commit: z.string().optional(),
  status: z.enum(['synced', 'partial', 'failed']),
  /** Why the pass failed as a whole (source gone, mass delete refused), with its error code. */
  error: z.object({ type: z.string(), message: z.string() }).optional(),
  added: z.number().int().min(0),
  changed: z.number().int().min(0),
  removed: z.number().int().min(0),
  renamed: z.number().int().min(0),
  unchanged: z.number().int().min(0),
  failed: z.array(SyncFailure),
  /** Leaves embedded by this pass (new text), and leaves that kept their stored vector. */
  leaves_embedded: z.number().int().min(0),
  leaves_reused: z.number().int().min(0),
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number().int().min(0),
  workflow_id: z.string(),
});
export type SyncPassReport = z.infer<typeof SyncPassReport>;

/** A pass as it runs (syncProgressQuery): the stage, and files done of those to ingest or remove. */
export type SyncProgress = {
  stage: 'listing' | 'ingesting' | 'removing' | 'reporting' | 'done';
  commit?: string;
  to_ingest: number;
  ingested: number;
  to_remove: number;
  removed: number;
  unchanged: number;
  failed: number;
  /** Files being ingested now. */
  current: string[];
};
