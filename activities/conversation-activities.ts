import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { answerConversation, condenseFallback, condensedByModel, conversationRecord, openTurn } from '../core/conversation/open-turn';
import type { Condensed } from '../core/conversation/offline-condense';
import { describeWithPlans, type ModelCallRecord } from '../core/schemas/model-call';
import { StandaloneQuestion, type SessionTurn } from '../core/schemas/conversation';
import type { SessionTurnStore } from './adapters/sql-session-turns';
import type { ConversationActivities, OpenTurnInput, RecordTurnInput } from './contracts';
import { recognizeIntent } from './intent-step';
import { parseModelOutput } from './model-output';
import type { ChatModels } from './ports';

export type ConversationDeps = {
  /** Where the session's turns live; without it every run is a first turn and nothing is recorded. */
  turns?: SessionTurnStore;
  models: ChatModels;
  /** SESSION_TURNS: how many earlier turns the answer step sees. */
  sessionTurns: number;
};

/** A reply made by documented rules (the offline provider) says which rule; a model's reply does not. */
const CondenseReply = StandaloneQuestion.extend({ offline_rule: z.string().optional() });

/** The activity's attempt; 1 outside an activity (a test calling it directly). */
function attemptNow(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 300);

/** The conversation activities (issue 25 §1): read the session before the graph, record the turn after it. */
export function conversationActivities(deps: ConversationDeps): ConversationActivities {
  const { turns: store, models, sessionTurns } = deps;

  async function condense(question: string, turns: SessionTurn[], calls: ModelCallRecord[]): Promise<Condensed> {
    if (!models.condenseQuestion) return { standalone: question, condensedBy: 'none', why: `the provider (${models.describe}) does not condense questions` };
    const where = { model: models.describe, schema: 'standalone_question', attempt: attemptNow() };
    try {
      const reply = parseModelOutput(CondenseReply, await models.condenseQuestion(question, turns, (call) => calls.push(call)), where);
      if (reply.offline_rule === undefined) return condensedByModel(question, reply);
      const rewritten = reply.depends_on_history && reply.standalone_question.trim() !== question.trim();
      return { standalone: rewritten ? reply.standalone_question : question, condensedBy: rewritten ? 'offline_rules' : 'none', why: reply.offline_rule };
    } catch (error) {
      // The question as asked retrieves what the person typed; a run never fails because a follow-up was not condensed.
      return condenseFallback(question, reasonOf(error));
    }
  }

  return {
    async openTurn({ tenant, sessionId, question, recognizeIntent: asksIntent }: OpenTurnInput) {
      const began = performance.now();
      const earlier = store ? await store.turnsOf(tenant, sessionId) : [];
      const opening = openTurn(question, earlier, sessionTurns);
      const modelCalls: ModelCallRecord[] = [];
      // Issue 44 §5: a question that needs no retrieval is answered from here, and is not condensed for retrieval.
      const intent = asksIntent ? await recognizeIntent(models, question, earlier, modelCalls, attemptNow()) : undefined;
      const noRetrieval: Condensed | null = intent && !intent.needs_retrieval ? { standalone: question, condensedBy: 'none', why: `a ${intent.intent} needs no retrieval` } : null;
      const condensed = noRetrieval ?? opening.asIs ?? (await condense(question, opening.window.turns, modelCalls));
      return {
        data: {
          standaloneQuestion: condensed.standalone,
          answerConversation: answerConversation(question, opening.window),
          record: conversationRecord(question, earlier.length, opening.window, condensed),
          ...(intent ? { intent } : {}),
        },
        // The 59-field trace is the graph's; the conversation sits beside it, in the outcome.
        traceFragment: { fields: {} },
        ...(modelCalls.length > 0 ? { modelCalls, producedBy: describeWithPlans(models.describe, models.plans?.()) } : {}),
        ranMs: Math.round(performance.now() - began),
      };
    },

    async recordTurn({ tenant, sessionId, turn }: RecordTurnInput) {
      // A worker built without a store (tests of the graph alone) keeps no turns, as it reads none.
      if (!store) return null;
      return store.append(tenant, sessionId, turn, new Date().toISOString());
    },
  };
}
