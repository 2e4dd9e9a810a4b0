import { z } from 'zod';
import { LocalSettings } from '../settings/local-settings';
import { ModelPlan } from './model-call';

/*
 * `ragtime doctor` and GET /api/doctor (issue 24 §3): one tiny call to each configured service and model endpoint,
 * what each model will be sent and why, and a line per problem with its fix.
 */

export const DoctorCheckKind = z.enum(['temporal', 'worker', 'milvus', 'embeddings', 'database', 'rerank', 'model']);
export type DoctorCheckKind = z.infer<typeof DoctorCheckKind>;

export const DoctorCheck = z.object({
  kind: DoctorCheckKind,
  /** What was checked, without credentials: an address, a knowledge base, a model name. */
  target: z.string(),
  ok: z.boolean(),
  /** What the call found (ok), or the problem and its fix (not ok): one line. */
  detail: z.string(),
  ms: z.number().min(0),
  /** For a model: the output mode and temperature it will use, and why (after the probe's own steps down). */
  plan: ModelPlan.optional(),
});
export type DoctorCheck = z.infer<typeof DoctorCheck>;

export const DoctorReport = z.object({
  ok: z.boolean(),
  /** The settings the checks used, and where each came from: environment, settings file or default (issue 33 §1). */
  settings: LocalSettings.optional(),
  checks: z.array(DoctorCheck),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

export const doctorReportOf = (checks: DoctorCheck[], settings?: LocalSettings): DoctorReport => ({
  ok: checks.every((check) => check.ok),
  ...(settings ? { settings } : {}),
  checks,
});
