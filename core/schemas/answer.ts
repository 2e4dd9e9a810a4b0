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

/**
 * What the answer check (core/answer/answer-check.ts, issue 26 §4) does with an answer it has findings on, by
 * ANSWER_CHECK_ACTION: `allow` reports them only, `warn` (the default) reports them as warnings and keeps the answer,
 * `refuse` withholds an answer that has a numeric warning (its text becomes the no-knowledge sentence; the writer's
 * text is kept in `withheld_text`). Unsupported claims alone never refuse: they warn.
 */
export const AnswerCheckAction = z.enum(['allow', 'warn', 'refuse']);
export type AnswerCheckAction = z.infer<typeof AnswerCheckAction>;

/**
 * What a checked token is: a bare number, a number with a unit (`quantity`: 256GB, 10 秒, 399 元, 2 年, 50%), a date
 * (2024-05-01, 2024年5月1日, 5月1日, 2024年) or a model name (Latin letters and digits in one word: X2, RTX4090, AX3000).
 */
export const NumericTokenKind = z.enum(['number', 'quantity', 'date', 'model_name']);
export type NumericTokenKind = z.infer<typeof NumericTokenKind>;

/**
 * Why a token is flagged: no valid cited quote (nor the question) holds it (`not_in_quotes`); a quote holds its
 * number but with another unit (`unit_mismatch`, 256MB written where 256GB is quoted); or the answer has no citation
 * that holds at all, so nothing can support it (`no_cited_quote`).
 */
export const NumericWarningReason = z.enum(['not_in_quotes', 'unit_mismatch', 'no_cited_quote']);
export type NumericWarningReason = z.infer<typeof NumericWarningReason>;

/** A number, date, unit or model name of the answer that none of its cited quotes contains. */
export const NumericWarning = z.object({
  /** The token as the answer writes it (e.g. "５１２ GB", "2024年5月1日", "RTX4090"). */
  token: z.string(),
  kind: NumericTokenKind,
  /** The answer's sentence that holds it, as written. */
  sentence: z.string(),
  reason: NumericWarningReason,
});
export type NumericWarning = z.infer<typeof NumericWarning>;

/**
 * A cited sentence whose content words are too rarely in the quotes it cites (`overlap`: the share of its content
 * words, those of the question left out, found in them; below MIN_CLAIM_OVERLAP).
 */
export const UnsupportedClaim = z.object({ sentence: z.string(), overlap: z.number().min(0).max(1) });
export type UnsupportedClaim = z.infer<typeof UnsupportedClaim>;

/**
 * What the verifier found (core/answer/verify-answer.ts). The answer check's three fields are present when it has
 * findings, and absent when it found nothing (the same as `action: allow`) or the answer predates the check.
 */
export const AnswerVerification = z.object({
  status: VerificationStatus,
  invalid_citations: z.array(InvalidCitation),
  /** Sentences of the answer that carry no valid citation, as written. */
  uncited_sentences: z.array(z.string()),
  /** Numbers, dates, units and model names of the answer that no cited quote (nor the question) contains. */
  numeric_warnings: z.array(NumericWarning).optional(),
  /** Cited sentences whose words the quotes they cite barely hold. */
  unsupported_claims: z.array(UnsupportedClaim).optional(),
  /** What ANSWER_CHECK_ACTION made of the findings; `refuse` means the answer's text was withheld. */
  action: AnswerCheckAction.optional(),
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

/**
 * A part of a question of several parts that no evidence answers (issue 42 §5), with the sentence to show a person in
 * the question's language ("The documents do not mention the first meeting."). Written by the extractive answerer.
 */
export const UnansweredPart = z.object({ part: z.string(), notice: z.string() });
export type UnansweredPart = z.infer<typeof UnansweredPart>;

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
  /**
   * Set only when the answer check refused the answer (`verification.action` is `refuse`): the writer's text, which
   * `text` replaces with the no-knowledge sentence. Shown for review; not an answer to give a person.
   */
  withheld_text: z.string().optional(),
  /** The parts of the question the answer does not answer, each with its notice (absent: none, or not known). */
  unanswered_parts: z.array(UnansweredPart).optional(),
});
export type RagAnswer = z.infer<typeof RagAnswer>;

/**
 * Why a run's `answer` is null: it has not settled yet (`pending`), it settled on another route
 * (`route_not_answer`), the run itself failed (`run_failed`), the writer failed for good (`answer_failed`, with
 * `answer_error`), the run predates the answer node (`not_generated`, a history recorded before it), or the answer
 * was written from evidence the reader's token may not read and is withheld from it (`not_visible`, issue 44 §4;
 * never stored, only in what a reader is shown: core/knowledge/redact-for-reader.ts).
 */
export const AnswerNullReason = z.enum(['pending', 'route_not_answer', 'run_failed', 'answer_failed', 'not_generated', 'not_visible']);
export type AnswerNullReason = z.infer<typeof AnswerNullReason>;
