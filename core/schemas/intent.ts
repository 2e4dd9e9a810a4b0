import { z } from 'zod';

/*
 * Intent (issue 44 §5): whether a question needs the knowledge base at all. Greetings, thanks and questions about the
 * conversation itself are answered without retrieval; everything else is a knowledge query. The trace records it as
 * NexaRAG's retrieval trace does: `intent` (an object: the intent, its confidence, …) and `needs_retrieval`.
 */

export const Intent = z.enum(['greeting', 'thanks', 'conversation_meta', 'knowledge_query']);
export type Intent = z.infer<typeof Intent>;

/** What a conversation-meta question asks about: the last question, the first one, the last answer, or all of them. */
export const MetaTopic = z.enum(['last_question', 'first_question', 'last_answer', 'topics']);
export type MetaTopic = z.infer<typeof MetaTopic>;

/** The trace's `intent` object. */
export const IntentRecord = z.object({
  intent: Intent,
  /** 0–1: how sure the decider is (the rules' exact phrases are sure; the default, knowledge_query, is not a guess). */
  confidence: z.number().min(0).max(1),
  /** The question's language, which the reply is written in. */
  language: z.enum(['zh', 'en']),
  /** Who decided: the rules of core/intent/, or the model (MODEL_STEPS intent=model), which confirms the rules' pick. */
  decided_by: z.enum(['rules', 'model']),
  /** The rule that matched (e.g. `greeting:你好`), or why the model or the fallback decided; null for the default. */
  rule: z.string().nullable(),
});
export type IntentRecord = z.infer<typeof IntentRecord>;

/** What the conversation activity decided (openTurn): the record, whether to retrieve, and the reply when not. */
export const IntentDecision = IntentRecord.extend({
  needs_retrieval: z.boolean(),
  /** The reply to give instead of retrieving; null when the question needs retrieval. */
  reply: z.string().nullable(),
  /** Who wrote the reply: the rules (`intent-rules v1`) or the answer model's name. */
  replied_by: z.string().nullable(),
  /** Time spent deciding and replying, ms. */
  duration_ms: z.number().min(0),
});
export type IntentDecision = z.infer<typeof IntentDecision>;

/**
 * The model's structured output (`intent_reply`): it confirms that the question needs no retrieval and writes the
 * reply, or says it does need retrieval (then the run retrieves as for any question).
 */
export const IntentReply = z.object({
  needs_retrieval: z.boolean(),
  reply: z.string(),
});
export type IntentReply = z.infer<typeof IntentReply>;
