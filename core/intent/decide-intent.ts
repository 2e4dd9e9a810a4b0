import type { RagAnswer } from '../schemas/answer';
import type { IntentDecision, IntentRecord, IntentReply } from '../schemas/intent';
import type { TraceFragment } from '../trace/fragment';
import { INTENT_RULES_VERSION, type IntentRuleResult } from './classify-intent';
import { rulesReply, type EarlierTurn } from './rules-reply';

/*
 * What the intent step decides (issue 44 §5), from the rules' pick and, when the intent step is the model's, its reply;
 * and what a run answered without retrieval records: its trace fields and its answer. Pure.
 */

/** Version of the reply prompt and rules, recorded as the answer's prompt_version. */
export const INTENT_PROMPT_VERSION = 'intent-v1';

const recordOf = ({ intent, confidence, language, decided_by, rule }: IntentRuleResult): IntentRecord => ({ intent, confidence, language, decided_by, rule });

/** The rules decide alone (offline, local, MODEL_STEPS intent=rules): their reply, or retrieval. */
export function decideByRules(rules: IntentRuleResult, turns: readonly EarlierTurn[], durationMs: number): IntentDecision {
  const reply = rules.needs_retrieval ? null : rulesReply(rules, turns);
  return { ...recordOf(rules), needs_retrieval: reply === null, reply, replied_by: reply === null ? null : INTENT_RULES_VERSION, duration_ms: durationMs };
}

/** The model confirmed the rules' pick and replied, or found that the question needs retrieval after all. */
export function decideByModel(rules: IntentRuleResult, reply: IntentReply, writer: string, durationMs: number): IntentDecision {
  const text = reply.reply.trim();
  if (reply.needs_retrieval || text === '') {
    const why = `the model found that it needs retrieval (the rules said ${rules.intent})`;
    return { intent: 'knowledge_query', confidence: 1, language: rules.language, decided_by: 'model', rule: why, needs_retrieval: true, reply: null, replied_by: null, duration_ms: durationMs };
  }
  return { ...recordOf(rules), decided_by: 'model', needs_retrieval: false, reply: text, replied_by: writer, duration_ms: durationMs };
}

/** The model's call failed: the rules reply, and the record says why (a greeting never fails a run). */
export function decideAfterModelFailure(rules: IntentRuleResult, turns: readonly EarlierTurn[], reason: string, durationMs: number): IntentDecision {
  const decision = decideByRules(rules, turns, durationMs);
  return { ...decision, rule: `${rules.rule ?? rules.intent}; the model's reply failed (${reason}), the rules replied` };
}

/** The trace of a run answered without retrieval: no tool used, the question, route answer, and the intent fields. */
export function intentTraceFragment(decision: IntentDecision, question: string): TraceFragment {
  const { intent, confidence, language, decided_by, rule } = decision;
  return {
    startsTrace: true,
    fields: { tool_used: false, query: question, route: 'answer', intent: { intent, confidence, language, decided_by, rule }, needs_retrieval: false },
  };
}

/** The answer of a run answered without retrieval: the reply, no citations and nothing to verify against evidence. */
export function replyAnswer(decision: IntentDecision): RagAnswer {
  return {
    text: decision.reply ?? '',
    citations: [],
    // No evidence and no claim from it: nothing a citation could support, so nothing is unverified.
    verification: { status: 'verified', invalid_citations: [], uncited_sentences: [] },
    model: decision.replied_by ?? INTENT_RULES_VERSION,
    duration_ms: decision.duration_ms,
    prompt_version: INTENT_PROMPT_VERSION,
    repair_attempted: false,
  };
}
