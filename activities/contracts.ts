import type { GradeStepResult } from '../core/graph/grade-step';
import type { RagAnswer } from '../core/schemas/answer';
import type { AuditBatch } from '../core/schemas/audit';
import type { AnswerConversation, ConversationRecord, SessionTurn } from '../core/schemas/conversation';
import type { ComplexityPlan } from '../core/graph/plan-complexity';
import type { IntentDecision } from '../core/schemas/intent';
import type { ModelCallRecord } from '../core/schemas/model-call';
import type { EvidenceGrade } from '../core/schemas/model-outputs';
import type { FilterClause, MetadataFilters } from '../core/retrieval/metadata-filter';
import type { Chunk } from '../core/schemas/retrieved-chunk';
import type { TraceFragment } from '../core/trace/fragment';
import type { Rewrite, RetrievalResult } from '../core/trace/writers';

/*
 * The activity interfaces the workflows call (DESIGN §2). Each returns its data plus the trace fragment that
 * follows from it, built by a pure core/ function, so the workflow's trace is a pure function of activity results.
 * Workflows import these as types only.
 */

export type ActivityResult<T> = {
  data: T;
  traceFragment: TraceFragment;
  /** The provider and models that produced a model activity's result (ChatModels.describe), for the run's memo. */
  producedBy?: string;
  /** How each model call of the activity asked and what it changed (issue 24); read from the history by RunDetail. */
  modelCalls?: ModelCallRecord[];
  /** How long a local activity ran, measured by itself: what the run's stamps read after it (workflows/stamp-clock.ts). */
  ranMs?: number;
};

/** Which retrieval of the graph this is: for the activity summary, logs and diagnostics. */
export type RetrievalPurpose = 'initial' | 'rewritten' | 'sub_question' | 'hitl_targeted';

export type PlanComplexityInput = {
  question: string;
  /**
   * The planner's attempt when the workflow retries it itself (speculation ahead of the planner, issue 26 §5): every
   * execution is then the activity's attempt 1, and the schema budget counts this instead. Absent: the activity's own.
   */
  attempt?: number;
};
export type RetrieveInput = {
  query: string;
  purpose: RetrievalPurpose;
  /** The run's knowledge base (DESIGN §4b); absent in runs started before knowledge bases: the worker's default. */
  kb?: string;
  /** Only these documents: the one a person chose when the run asked which (issue 32 §2); absent: every document. */
  docIds?: string[];
  /** The run's metadata filters (issue 44 §2), applied inside both searches; absent: none. */
  filters?: MetadataFilters;
  /** Clauses ANDed that the run's caller cannot widen (issue 44 §4's hook, see RetrievalScope.forced). */
  forced?: FilterClause[];
};
export type GradeEvidenceInput = {
  question: string;
  /** The evidence; the grader reads it formatted as spec §4.4.2 says (core formatDocs). */
  docs: Chunk[];
  /** Routing context (spec §4.5.3): the grade is resolved into a route next to the model call. */
  rewriteCount: number;
  isSubAgent: boolean;
  /** The document a person chose when the run asked which (issue 32 §2): its title. */
  scope?: string;
};
export type PlanRewriteInput = { question: string; rewriteCount: number };
export type GenerateAnswerInput = {
  /** The question the evidence was retrieved for (q* after a clarification). */
  question: string;
  /** The final evidence, in its order: document n of the prompt is docs[n - 1]. */
  docs: Chunk[];
  /** The one repair attempt: the answer whose verification failed. */
  repair?: { previous: RagAnswer };
  /** On a turn with history (issue 25 §1): the person's own words and the window of earlier turns. */
  conversation?: AnswerConversation;
  /** Streams the text as it is written (issue 25 §2) under the answer generation the workflow named. */
  stream?: { generation: string };
};

/** The grade, and what it resolves to. The evidence list is not sent back: the workflow keeps it (spec §4.5 step 7). */
export type GradeEvidenceData = Omit<GradeStepResult, 'traceFragment' | 'docs'> & { grade: EvidenceGrade };

export interface RagActivities {
  /** spec §4.2 steps 3–6: the planner model, its output cleaned (not called when the fast path hits). */
  planComplexity(input: PlanComplexityInput): Promise<ActivityResult<ComplexityPlan>>;
  /** spec §6.1: never throws for infrastructure errors; they are reported in the meta. */
  retrieve(input: RetrieveInput): Promise<ActivityResult<RetrievalResult>>;
  /** spec §4.5 steps 2–7: the grader model on non-empty evidence, the route resolved from its grade. */
  gradeEvidence(input: GradeEvidenceInput): Promise<ActivityResult<GradeEvidenceData>>;
  /** spec §4.7.1: one rewrite plan, composed into the rewritten query. */
  planRewrite(input: PlanRewriteInput): Promise<ActivityResult<Rewrite>>;
  /**
   * The answer node (DESIGN §3.6): the answer writer on the final evidence, its draft verified (pure, core/answer).
   * It writes no trace: the 59-field protocol is unchanged, the answer sits beside it.
   */
  generateAnswer(input: GenerateAnswerInput): Promise<ActivityResult<RagAnswer>>;
}

/** How many rows and events a recordAudit call inserted now (already recorded ones are ignored). */
export type AuditRecordResult = { invocations: number; events: number };

export interface AuditActivities {
  /**
   * DESIGN §5 layer B: writes a run's tool invocations and timeline events to the audit store, idempotently (keyed
   * on workflow id, run id and step or key), so retries, worker restarts and replays never duplicate a row. It
   * writes no trace: the audit is a record of the run, not part of it.
   */
  recordAudit(batch: AuditBatch): Promise<AuditRecordResult>;
}

/** A session as the conversation activities key it: tenant ('' for runs no HTTP tenant started) and session id. */
export type SessionKey = { tenant: string; sessionId: string };
export type OpenTurnInput = SessionKey & {
  question: string;
  /** Whether the run decides the question's intent here (issue 44 §5; runs since INTENT_PATCH). */
  recognizeIntent?: boolean;
};
export type OpenTurnData = {
  /** What retrieval, grading and rewriting use. */
  standaloneQuestion: string;
  /** What the answer writer sees of the conversation; null on a first turn. */
  answerConversation: AnswerConversation | null;
  record: ConversationRecord;
  /** The question's intent, and the reply when it needs no retrieval; absent when the run did not ask. */
  intent?: IntentDecision;
};
export type RecordTurnInput = SessionKey & { turn: Omit<SessionTurn, 'turn'> };

/** Conversations (issue 25 §1, docs/design/conversations.md): the session's turns in, this run's turn out. */
export interface ConversationActivities {
  /**
   * Reads the session's completed turns and makes the question stand alone (FAST_MODEL, or the offline rules) when
   * it refers back. A failed condensation is not a failure: the question is used as asked, and the record says why.
   */
  openTurn(input: OpenTurnInput): Promise<ActivityResult<OpenTurnData>>;
  /** Records the run's turn as the session's next one; idempotent by workflow id. Null: the worker keeps no turns. */
  recordTurn(input: RecordTurnInput): Promise<SessionTurn | null>;
}
