import { auditActivities } from './audit-activities';
import type { AuditActivities, RagActivities } from './contracts';
import { withHeartbeats } from './heartbeats';
import { ingestActivities, type IngestDeps } from './ingest-activities';
import { modelActivities } from './model-activities';
import type { AuditStore, ChatModels, Retriever } from './ports';
import { retrievalActivities } from './retrieval-activities';

export type ActivityDeps = {
  models: ChatModels;
  retriever: Retriever;
  /** The knowledge store for ingestFile; without it, ingestFile fails with INVALID_CONFIG. */
  ingest?: IngestDeps;
  /** The audit store for recordAudit; without it, recordAudit records nothing (and says so once). */
  audit?: AuditStore;
};

/** Every activity of ragtime, wired to the adapters it is given (workers/ builds them from config). */
export const createActivities = (deps: ActivityDeps) => ({
  // Model and retrieval calls wait on a provider: they heartbeat, so a dead worker is noticed in seconds.
  ...(withHeartbeats({ ...modelActivities(deps.models), ...retrievalActivities(deps.retriever) }) satisfies RagActivities),
  ...ingestActivities(deps.ingest),
  ...(auditActivities(deps.audit) satisfies AuditActivities),
});

export type Activities = ReturnType<typeof createActivities>;
export type { AuditActivities, RagActivities } from './contracts';
export type { IngestActivities, IngestDeps } from './ingest-activities';
export type { AuditStore, ChatModels, Retriever } from './ports';
