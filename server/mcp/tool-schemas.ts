import { FiltersInput } from '../../core/retrieval/metadata-filter';
import { z } from 'zod';
import { KbName } from '../../core/knowledge/knowledge-base';
import { HitlAnswer, Question, SessionId } from '../../core/schemas/run-io';
import { AnsweredBy } from '../../core/schemas/answered-by';
import { CancelRunInput } from '../../core/schemas/run-cancellation';

/*
 * The MCP tools' contracts (docs/MCP.md): the input schemas the SDK validates arguments with (its error text is
 * zod's, so an agent reads the same rule the HTTP API states), and the structured results. The results are a
 * projection of the run (seed 004: the agent sees evidence and a verdict, not the trace), bounded in size.
 */

/** At most this many evidence items in a tool result (seed 004's bounded projection). */
export const MCP_MAX_EVIDENCE = 8;
/** Each evidence text is cut to this many characters (with an ellipsis). */
export const MCP_EVIDENCE_CHARS = 600;

/** issue 44 §2: the same filters as the HTTP API's and `ask --filter`. */
const FILTERS_DESCRIPTION =
  'Only documents whose metadata matches, applied inside the search: {"product": "atlas"}, or {"product": ["atlas", "zephyr"]} for one of; every key must match; "doc_id" names documents by id.';

const RunId = z.string().trim().min(1, 'run_id is empty').max(1024);

export const AskKnowledgeInput = z.strictObject({
  question: Question.describe('The question, as the person asked it (1–2,000 characters).'),
  kb: KbName.optional().describe('Knowledge base to read; default: the configured one (or your tenant’s).'),
  filters: FiltersInput.optional().describe(FILTERS_DESCRIPTION),
  session: SessionId.optional().describe(
    'Conversation id. Runs of one session are one conversation: a follow-up ("它的保修期呢？", "and the X3?") is read with the earlier turns. Omitted: a new conversation for this question alone (the result’s session_id names it; pass it back to ask a follow-up).',
  ),
});
export type AskKnowledgeInput = z.infer<typeof AskKnowledgeInput>;

export const AnswerClarificationInput = z.strictObject({
  run_id: RunId.describe('The run_id of the result that asked (status "awaiting_input").'),
  answer: HitlAnswer.describe('The person’s answer: free text, or the number of one of the offered options (1-based).'),
});
export type AnswerClarificationInput = z.infer<typeof AnswerClarificationInput>;

export const GetRunInput = z.strictObject({ run_id: RunId.describe('A run_id returned by ask_knowledge.') });
export type GetRunInput = z.infer<typeof GetRunInput>;

/** cancel_run (issue 43 §6): the run, and why (kept in its history in clear: never a secret). */
export const CancelRunToolInput = z.strictObject({
  run_id: RunId.describe('The run_id of a run that is running or waits for the person.'),
  reason: CancelRunInput.shape.reason.describe('Why, in a few words (up to 500 characters), e.g. "the person no longer needs it".'),
});
export type CancelRunToolInput = z.infer<typeof CancelRunToolInput>;

export const SearchKnowledgeInput = z.strictObject({
  query: Question.describe('What to look for (1–2,000 characters).'),
  kb: KbName.optional().describe('Knowledge base to search; default: the configured one.'),
  filters: FiltersInput.optional().describe(FILTERS_DESCRIPTION),
  top_k: z.number().int().min(1).max(MCP_MAX_EVIDENCE).optional().describe(`How many evidence items, 1–${MCP_MAX_EVIDENCE} (default 5).`),
});
export type SearchKnowledgeInput = z.infer<typeof SearchKnowledgeInput>;

export const Evidence = z.object({
  text: z.string(),
  /** The source document's file name. */
  source: z.string().nullable(),
  page: z.union([z.string(), z.number()]).nullable(),
  /** The reranker's score when one ran, else the retrieval's. */
  score: z.number().nullable(),
});
export type Evidence = z.infer<typeof Evidence>;

export const Citation = z.object({ marker: z.number().int(), source: z.string().nullable(), page: z.union([z.string(), z.number()]).nullable(), quote: z.string() });

export const Clarification = z.object({
  prompt: z.string(),
  options: z.array(z.string()),
  round: z.number().int(),
  /** What to do next, for an agent that reads text: call answer_clarification with the run id. */
  how_to_answer: z.string(),
});

/** One run as a tool result: what ask_knowledge, answer_clarification and get_run return. */
export const RunResult = z.object({
  run_id: z.string(),
  /** The conversation the run belongs to: pass it as `session` to ask a follow-up in it (issue 33 §2). */
  session_id: z.string(),
  status: z.enum(['running', 'completed', 'awaiting_input', 'failed']),
  kb: z.string().nullable(),
  route: z.string().nullable(),
  retrieval_status: z.string().nullable(),
  answer: z
    .object({
      text: z.string(),
      citations: z.array(Citation),
      /** "citations verified": every quote matches its source — not a judgement that the answer is right (issue 33 §6). */
      citation_check: z.string(),
      /** Why: for a verified answer what that means; else each fault ("a sentence cites no source", issue 43 §4). */
      citation_check_reason: z.string(),
      /** The evidence grader's confidence (0–1), null when the run has no grade. */
      grade_confidence: z.number().nullable(),
    })
    .nullable(),
  /** Why there is no answer (e.g. "route_not_answer" for no_knowledge), null when there is one. */
  answer_null_reason: z.string().nullable(),
  evidence: z.array(Evidence).max(MCP_MAX_EVIDENCE),
  /** How many evidence items the run holds (evidence shows at most MCP_MAX_EVIDENCE). */
  evidence_total: z.number().int().min(0),
  clarification: Clarification.nullable(),
  /** Answers the person gave through MCP elicitation during this call. */
  elicited_answers: z.number().int().min(0),
  degraded: z.object({ component: z.string(), reason: z.string() }).nullable(),
  error: z.object({ type: z.string(), message: z.string() }).nullable(),
  /** The full normalized trace, as an MCP resource. */
  trace_uri: z.string(),
  /** The provider and models that graded and wrote (issue 43 §5); null until the run reports one. */
  answered_by: AnsweredBy.omit({ models: true }).nullable(),
});
export type RunResult = z.infer<typeof RunResult>;

export const SearchResult = z.object({
  kb: z.string(),
  evidence: z.array(Evidence).max(MCP_MAX_EVIDENCE),
  /** high/medium/low/none: the grader's verdict (else the best reranker score); none also when nothing was found; unranked: neither judged it. */
  relevance_level: z.enum(['none', 'low', 'medium', 'high', 'unranked', 'unavailable']),
  retrieval_mode: z.string().nullable(),
});
export type SearchResult = z.infer<typeof SearchResult>;
