import { z } from 'zod';
import { AccessGroups } from '../knowledge/document-access';
import { KbName } from '../knowledge/knowledge-base';
import { MetadataFilters } from '../retrieval/metadata-filter';
import { AnswerNullReason, RagAnswer } from './answer';
import { AnsweredBy } from './answered-by';
import { ConversationRecord } from './conversation';
import { RetrievalStatus, Route } from './graph-values';
import { HitlResumeState } from './hitl-resume-state';
import { RagTrace } from './rag-trace';
import { Chunk } from './retrieved-chunk';
import { SpeculationLevel, SpeculationReport } from './speculation';

/** A question is 1–2,000 characters after trimming. */
export const QUESTION_MAX_LENGTH = 2000;
/** An answer to a clarification question: 1–2,000 characters after trimming. */
export const ANSWER_MAX_LENGTH = 2000;
/** How long a run waits for a person by default: 7 days. */
export const DEFAULT_ANSWER_TIMEOUT_MS = 7 * 24 * 60 * 60 * 1000;
/** How many clarification questions one run may ask by default. */
export const DEFAULT_MAX_HITL_ROUNDS = 3;

/**
 * Text a person typed, refused when it cannot be meant: trimmed, 1–`max` characters, well-formed Unicode (no lone
 * surrogate, which no embedder or tokenizer reads), no control characters (NUL and the like; tab and newlines are
 * fine) and at least one visible character (not only zero-width or format characters).
 */
export function personText(what: string, max: number) {
  return z
    .string()
    .trim()
    .min(1, { message: `${what} is empty after trimming`, abort: true })
    .max(max, { abort: true })
    .refine((text) => !/\p{Cs}/u.test(text), { message: `${what} is not valid Unicode: it holds a lone surrogate`, abort: true })
    .refine((text) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/u.test(text), { message: `${what} holds a control character (such as NUL)`, abort: true })
    .refine((text) => /[^\p{Cf}\p{Z}\s]/u.test(text), `${what} has no visible character (only spaces or zero-width characters)`);
}

export const Question = personText('question', QUESTION_MAX_LENGTH);

export const SessionId = z
  .string()
  .trim()
  .min(1, 'sessionId is empty')
  .max(200)
  .regex(/^[\w.:@-]+$/, 'sessionId may hold letters, digits and _ . : @ - only');

export const HitlAnswer = personText('answer', ANSWER_MAX_LENGTH);

export const HitlSettings = z.strictObject({
  answerTimeoutMs: z.number().int().positive().default(DEFAULT_ANSWER_TIMEOUT_MS),
  maxRounds: z.number().int().min(1).max(10).default(DEFAULT_MAX_HITL_ROUNDS),
});
export type HitlSettings = z.infer<typeof HitlSettings>;

/** Continue from a snapshot a run left (late answers, or snapshots from elsewhere); validated strictly later (T32). */
export const ResumeFrom = z.strictObject({ snapshot: z.unknown(), answer: z.string() });

export const RagWorkflowInput = z.strictObject({
  question: Question.optional(),
  sessionId: SessionId,
  hitl: HitlSettings.default({ answerTimeoutMs: DEFAULT_ANSWER_TIMEOUT_MS, maxRounds: DEFAULT_MAX_HITL_ROUNDS }),
  resumeFrom: ResumeFrom.optional(),
  /** The knowledge base the run reads (DESIGN §4b); absent: the worker's default (RAGTIME_KB). */
  kb: KbName.optional(),
  /** Metadata filters every retrieval of the run applies inside the search (issue 44 §2); absent: none. */
  filters: MetadataFilters.optional(),
  /**
   * The groups of the API token that started the run (issue 44 §4): every retrieval is limited to the documents they
   * may read (a forced clause the caller's filters cannot widen). Absent: no limit (the CLI, the SDK, MCP over stdio).
   */
  access: AccessGroups.optional(),
  /** Speculative execution (core/schemas/speculation.ts); absent: off, as every run recorded before it. */
  speculation: SpeculationLevel.optional(),
  /**
   * Whose session this is (the HTTP API's tenant), so that a session's turns are never read across tenants; absent:
   * '' (runs started by the CLI, the SDK or MCP over stdio share it, still apart from every tenant).
   */
  tenant: z.string().max(200).optional(),
}).refine((input) => input.question !== undefined || input.resumeFrom !== undefined, {
  message: 'question is required unless resumeFrom is given',
  path: ['question'],
});
export type RagWorkflowInput = z.input<typeof RagWorkflowInput>;
export type ParsedRagWorkflowInput = z.output<typeof RagWorkflowInput>;

export const RunStatus = z.enum(['running', 'awaiting_input', 'completed', 'failed']);
export type RunStatus = z.infer<typeof RunStatus>;

/** The question a waiting run asks a person. */
export const HitlRequest = z.object({ prompt: z.string(), options: z.array(z.string()), round: z.number().int().min(1) });
export type HitlRequest = z.infer<typeof HitlRequest>;

/**
 * One clarification round of a run, for the record of why it ended as it did. Round 0 is the answer a resumed run
 * was started with (`resumeFrom`, answered_via "resume_from"); the questions the run asks itself count from 1.
 */
export const HitlRound = z.object({
  round: z.number().int().min(0),
  route: Route,
  retrieval_status: RetrievalStatus,
  prompt: z.string(),
  options: z.array(z.string()),
  answer: z.string().nullable(),
  answered_via: z.enum(['signal', 'update', 'resume_from']).nullable(),
  outcome: z.enum(['waiting', 'answered', 'timed_out']),
});
export type HitlRound = z.infer<typeof HitlRound>;

export const RunError = z.object({ type: z.string(), message: z.string() });
export type RunError = z.infer<typeof RunError>;

/**
 * The knowledge base could not be read during the run (issue 14 §2): the spec's route and trace stand (an empty
 * retrieval routes to no_knowledge), but "no answer in the knowledge base" is then not what happened. `component`:
 * the embeddings server (no query vector) or the knowledge store (Milvus, or the parent store during merging);
 * `reason`: the first failure's error text; `retrievals`: how many of the run's retrievals failed, of `of`.
 */
export const Degraded = z.object({
  component: z.enum(['embeddings', 'knowledge_store']),
  reason: z.string(),
  retrieval: z.enum(['initial', 'rewritten', 'sub_question', 'hitl_targeted']),
  retrievals: z.number().int().min(1),
  of: z.number().int().min(1),
});
export type Degraded = z.infer<typeof Degraded>;

/** What apps read: the first or next settled state of a run (completed, awaiting input, failed). */
export const RagOutcome = z.object({
  workflowId: z.string(),
  runId: z.string(),
  sessionId: z.string(),
  /**
   * The knowledge base the run read: the one it named, else the worker's default as its retrieval reported it; null
   * when no retrieval reported one (the run failed before retrieving, or was recorded before retrievals said).
   */
  kb: z.string().nullable().default(null),
  status: z.enum(['running', 'completed', 'awaiting_input', 'failed']),
  route: Route.nullable(),
  retrieval_status: RetrievalStatus.nullable(),
  rag_trace: RagTrace.nullable(),
  docs: z.array(Chunk),
  hitl: HitlRequest.nullable(),
  hitl_resume_state: HitlResumeState.nullable(),
  rounds: z.array(HitlRound),
  error: RunError.nullable(),
  /** The answer with its verified citations, when the run settled on route `answer` (DESIGN §3.6); else null. */
  answer: RagAnswer.nullable(),
  /** Why `answer` is null (null when there is one). */
  answer_null_reason: AnswerNullReason.nullable(),
  /** What failed when the writer failed for good (answer_null_reason `answer_failed`); the evidence is kept. */
  answer_error: RunError.nullable(),
  /** Set when a retrieval of the run could not read the knowledge base; null when every one could. */
  degraded: Degraded.nullable().default(null),
  /** What the run speculated, used and wasted (issue 17 §2); absent on runs that do not speculate. */
  speculation: SpeculationReport.optional(),
  /**
   * What the run did with its session's earlier turns (issue 25 §1): the standalone question retrieval used, the
   * turns the answer step saw, and why. Absent on runs recorded before conversations and on runs resumed from a snapshot.
   */
  conversation: ConversationRecord.optional(),
  /**
   * The provider and models that graded and wrote (issue 43 §5), from the provider description the run recorded;
   * absent until a model activity reported one, and on runs recorded before outcomes said.
   */
  answered_by: AnsweredBy.optional(),
});
export type RagOutcome = z.infer<typeof RagOutcome>;
