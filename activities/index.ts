import type { RagActivities } from './contracts';
import { modelActivities } from './model-activities';
import type { ChatModels, Retriever } from './ports';
import { retrievalActivities } from './retrieval-activities';

export type ActivityDeps = { models: ChatModels; retriever: Retriever };

/** Every activity of ragtime, wired to the adapters it is given (workers/ builds them from config). */
export const createActivities = (deps: ActivityDeps) =>
  ({ ...modelActivities(deps.models), ...retrievalActivities(deps.retriever) }) satisfies RagActivities;

export type Activities = ReturnType<typeof createActivities>;
export type { RagActivities } from './contracts';
export type { ChatModels, Retriever } from './ports';
