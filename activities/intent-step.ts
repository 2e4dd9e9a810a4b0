import { classifyIntent, type IntentRuleResult } from '../core/intent/classify-intent';
import { decideAfterModelFailure, decideByModel, decideByRules } from '../core/intent/decide-intent';
import type { EarlierTurn } from '../core/intent/rules-reply';
import { IntentReply, type IntentDecision } from '../core/schemas/intent';
import type { ModelCallRecord } from '../core/schemas/model-call';
import { parseModelOutput } from './model-output';
import type { ChatModels } from './ports';

/*
 * The intent step (issue 44 §5), run in openTurn where the session's turns are read: the rules pick greeting, thanks,
 * a question about the conversation, or a knowledge query; only a pick that needs no retrieval goes on to the model
 * (when the provider's intent step is the model's), which confirms it and replies, or sends it to retrieval. A
 * failed reply is the rules' reply: a greeting never fails a run.
 */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 300);

export async function recognizeIntent(
  models: ChatModels,
  question: string,
  earlier: readonly EarlierTurn[],
  calls: ModelCallRecord[],
  attempt: number,
): Promise<IntentDecision> {
  const began = performance.now();
  const elapsed = () => Math.round(performance.now() - began);
  const rules: IntentRuleResult = classifyIntent(question, { turnsBefore: earlier.length });
  if (rules.needs_retrieval || !models.replyWithoutRetrieval) return decideByRules(rules, earlier, elapsed());
  const where = { model: models.describe, schema: 'intent_reply', attempt };
  try {
    const raw = await models.replyWithoutRetrieval(question, rules.intent, [...earlier], (call) => calls.push(call));
    return decideByModel(rules, parseModelOutput(IntentReply, raw, where), models.answerModel, elapsed());
  } catch (error) {
    return decideAfterModelFailure(rules, earlier, reasonOf(error), elapsed());
  }
}
