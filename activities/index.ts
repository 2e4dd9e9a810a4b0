import type { RagActivities } from './contracts';
import { ingestActivities, type IngestDeps } from './ingest-activities';
import { modelActivities } from './model-activities';
import type { ChatModels, Retriever } from './ports';
import { retrievalActivities } from './retrieval-activities';

export type ActivityDeps = {
  models: ChatModels;
  retriever: Retriever;
  /** The knowledge store for ingestFile; without it, ingestFile fails with INVALID_CONFIG. */
  ingest?: IngestDeps;
};

/** Every activity of ragtime, wired to the adapters it is given (workers/ builds them from config). */
export const createActivities = (deps: ActivityDeps) => ({
  ...(({ ...modelActivities(deps.models), ...retrievalActivities(deps.retriever) }) satisfies RagActivities),
  ...ingestActivities(deps.ingest),
});

export type Activities = ReturnType<typeof createActivities>;
export type { RagActivities } from './contracts';
export type { IngestActivities, IngestDeps } from './ingest-activities';
export type { ChatModels, Retriever } from './ports';
