import { z } from 'zod';

/*
 * The answer node (DESIGN §3.6): what the writer model returns (AnswerDraft), what the pure verifier reports
 * (AnswerVerification) and the answer a run's outcome carries (RagAnswer). The 59-field trace is not touched: the
 * answer and its record sit beside it.
 */

/** Version of the answer prompts (core/prompts/answer-prompt.ts); recorded with every answer. */
export const ANSWER_PROMPT_VERSION = 'answer-v1';

/** At most this many citations in one answer; more is a reply that ignored the instructions. */
export const MAX_ANSWER_CITATIONS = 20;

/**
 * One citation as the writer gives it: the inline marker `[marker]`, the evidence document it cites (`doc_index`, the
 * 1-based number the prompt gave the document, `[n]` in the formatted evidence) and a verbatim span of it.
 */
export const AnswerCitationDraft = z.object({
  marker: z.number().int().min(1),
  doc_index: z.number().int().min(1),
  quote: z.string(),
});
export type AnswerCitationDraft = z.infer<typeof AnswerCitationDraft>;

/** The writer's structured output (`answer_draft`): the answer with inline markers, and its citations. */
export const AnswerDraft = z.object({
  answer: z.string(),
  citations: z.array(AnswerCitationDraft).max(MAX_ANSWER_CITATIONS),
});
export type AnswerDraft = z.infer<typeof AnswerDraft>;

export const VerificationStatus = z.enum(['verified', 'partially_verified', 'unverified']);
export type VerificationStatus = z.infer<typeof VerificationStatus>;

/**
 * Why a citation does not hold: its marker has no entry in the citation list (`missing_citation`), it names a
 * document the evidence does not have (`unknown_document`), or its quote is not in that document (`quote_not_found`,
 * `empty_quote`).
 */
export const InvalidCitationReason = z.enum(['missing_citation', 'unknown_document', 'quote_not_found', 'empty_quote']);
export type InvalidCitationReason = z.infer<typeof InvalidCitationReason>;

export const InvalidCitation = z.object({
  marker: z.number().int(),
  doc_index: z.number().int().nullable(),
  reason: InvalidCitationReason,
});
export type InvalidCitation = z.infer<typeof InvalidCitation>;

/** What the verifier found (core/answer/verify-answer.ts). */
export const AnswerVerification = z.object({
  status: VerificationStatus,
  invalid_citations: z.array(InvalidCitation),
  /** Sentences of the answer that carry no valid citation, as written. */
  uncited_sentences: z.array(z.string()),
});
export type AnswerVerification = z.infer<typeof AnswerVerification>;

/** A citation of the outcome: the draft's, with the cited chunk's identity. */
export const AnswerCitation = z.object({
  marker: z.number().int(),
  doc_index: z.number().int(),
  chunk_id: z.string().nullable(),
  filename: z.string().nullable(),
  page_number: z.union([z.string(), z.number()]).nullable(),
  quote: z.string(),
});
export type AnswerCitation = z.infer<typeof AnswerCitation>;

/** The answer of a run that settled on route `answer`, with its verification and its record. */
export const RagAnswer = z.object({
  text: z.string(),
  /** The citations that point at a document of the evidence, in marker order. */
  citations: z.array(AnswerCitation),
  verification: AnswerVerification,
  /** Who wrote it: the answer model, or the offline policy's extractive answerer. */
  model: z.string(),
  /** Time spent writing (and repairing) it, ms. */
  duration_ms: z.number().min(0),
  prompt_version: z.string(),
  /** True when the first draft failed verification and the writer was asked once to repair it. */
  repair_attempted: z.boolean(),
});
export type RagAnswer = z.infer<typeof RagAnswer>;

/**
 * Why a run's `answer` is null: it has not settled yet (`pending`), it settled on another route
 * (`route_not_answer`), the run itself failed (`run_failed`), the writer failed for good (`answer_failed`, with
 * `answer_error`), or the run predates the answer node (`not_generated`, a history recorded before it).
 */
export const AnswerNullReason = z.enum(['pending', 'route_not_answer', 'run_failed', 'answer_failed', 'not_generated']);
export type AnswerNullReason = z.infer<typeof AnswerNullReason>;
