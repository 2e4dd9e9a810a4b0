import { DEFAULT_SESSION_TURNS } from '../core/schemas/conversation';
import type { AnswerCheckAction } from '../core/schemas/answer';
import { auditActivities } from './audit-activities';
import type { AnswerStreamStore } from './adapters/sql-answer-stream';
import type { SessionTurnStore } from './adapters/sql-session-turns';
import type { AuditActivities, ConversationActivities, RagActivities } from './contracts';
import { conversationActivities } from './conversation-activities';
import { housekeepingActivities, type HousekeepingStores } from './housekeeping-activities';
import { withHeartbeats } from './heartbeats';
import { ingestActivities, type IngestDeps } from './ingest-activities';
import { modelActivities } from './model-activities';
import type { AuditStore, ChatModels, Retriever } from './ports';
import { retrievalActivities } from './retrieval-activities';
import { syncActivities, type SyncDeps } from './sync-activities';

export type ActivityDeps = {
  models: ChatModels;
  retriever: Retriever;
  /** The knowledge store for ingestFile; without it, ingestFile fails with INVALID_CONFIG. */
  ingest?: IngestDeps;
  /** The audit store for recordAudit; without it, recordAudit records nothing (and says so once). */
  audit?: AuditStore;
  /** ANSWER_CHECK_ACTION (issue 26 §4): what the answer check does with its findings; unset: `warn`. */
  answerCheck?: AnswerCheckAction;
  /** The session turn store (issue 25 §1); without it every run is a first turn and no turn is recorded. */
  turns?: SessionTurnStore;
  /** SESSION_TURNS (default 6): the earlier turns the answer step sees. */
  sessionTurns?: number;
  /** The side channel of streaming answers (issue 25 §2); without it nothing is streamed, the answers are the same. */
  answerStream?: AnswerStreamStore;
  /** What housekeeping prunes (issue 35 §1); without it pruneStores removes nothing. */
  housekeeping?: HousekeepingStores;
  /** Synced sources (issue 46): the knowledge stores, the pass reports' store, where git files are written. */
  sync?: SyncDeps;
};

/** Every activity of ragtime, wired to the adapters it is given (workers/ builds them from config). */
export const createActivities = (deps: ActivityDeps) => ({
  // Model and retrieval calls wait on a provider: they heartbeat, so a dead worker is noticed in seconds.
  ...(withHeartbeats({ ...modelActivities(deps.models, { answerCheck: deps.answerCheck, answerStream: deps.answerStream }), ...retrievalActivities(deps.retriever) }) satisfies RagActivities),
  ...ingestActivities(deps.ingest),
  ...syncActivities(deps.sync),
  ...(auditActivities(deps.audit) satisfies AuditActivities),
  // Local activities (workflows/activity-options.ts CONVERSATION_LOCAL): nobody to heartbeat to.
  ...housekeepingActivities(deps.housekeeping ?? {}),
  ...(conversationActivities({ turns: deps.turns, models: deps.models, sessionTurns: deps.sessionTurns ?? DEFAULT_SESSION_TURNS }) satisfies ConversationActivities),
});

export type Activities = ReturnType<typeof createActivities>;
export type { AuditActivities, ConversationActivities, RagActivities } from './contracts';
export type { IngestActivities, IngestDeps } from './ingest-activities';
export type { SyncActivities, SyncDeps } from './sync-activities';
export type { AuditStore, ChatModels, Retriever } from './ports';
