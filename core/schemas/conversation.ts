import { z } from 'zod';
import { Route } from './graph-values';

/*
 * Conversations (issue 25 §1): a session's completed turns, and what a run did with them — the standalone question it
 * retrieved for, which earlier turns the answer step saw, and why. Kept beside the 59-field trace, never in it.
 */

/** SESSION_TURNS: how many earlier turns the answer step sees (older ones are dropped, and the record says so). */
export const DEFAULT_SESSION_TURNS = 6;

/** One completed turn of a session, as a later turn reads it. */
export const SessionTurn = z.object({
  turn: z.number().int().min(1),
  /** What the person asked. */
  question: z.string(),
  /** What the run retrieved for: the question itself, or its condensed standalone form. */
  standaloneQuestion: z.string(),
  /** The answer's text; null when the run did not answer (no knowledge, a clarification, a failure). */
  answer: z.string().nullable(),
  route: Route.nullable(),
  workflowId: z.string(),
});
export type SessionTurn = z.infer<typeof SessionTurn>;

/** How the standalone question was made: by FAST_MODEL, by the offline rules, not at all, or the raw question after a failed call. */
export const CondensedBy = z.enum(['model', 'offline_rules', 'none', 'fallback']);
export type CondensedBy = z.infer<typeof CondensedBy>;

export const ConversationRecord = z.object({
  /** The question as the person asked it (the answer step sees it; retrieval uses `standaloneQuestion`). */
  question: z.string(),
  /** Completed turns of the session before this run. */
  turnsBefore: z.number().int().min(0),
  /** The turns the answer step saw (their numbers), oldest first. */
  turnsUsed: z.array(z.number().int().min(1)),
  /** Earlier turns left out of the window, and why (null when none was). */
  turnsDropped: z.number().int().min(0),
  dropReason: z.string().nullable(),
  /** The question retrieval used. */
  standaloneQuestion: z.string(),
  condensedBy: CondensedBy,
  /** One line: why the question was (or was not) rewritten, e.g. `resolved "它" to "Aurora X2 路由器" (turn 2)`. */
  why: z.string(),
});
export type ConversationRecord = z.infer<typeof ConversationRecord>;

/** The model's structured output when it condenses (`standalone_question`). */
export const StandaloneQuestion = z.object({
  standalone_question: z.string().trim().min(1).max(2000),
  depends_on_history: z.boolean(),
});
export type StandaloneQuestion = z.infer<typeof StandaloneQuestion>;

/** An earlier turn as the answer step sees it (the window of `SESSION_TURNS`). */
export const HistoryTurn = z.object({ turn: z.number().int().min(1), question: z.string(), answer: z.string().nullable() });
export type HistoryTurn = z.infer<typeof HistoryTurn>;

/** What the answer writer is given besides the evidence on a turn with history: the person's words and the window. */
export const AnswerConversation = z.object({ asked: z.string(), turns: z.array(HistoryTurn) });
export type AnswerConversation = z.infer<typeof AnswerConversation>;
