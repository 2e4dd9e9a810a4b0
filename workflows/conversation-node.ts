import { isCancellation, log, proxyLocalActivities } from '@temporalio/workflow';
import type { ConversationActivities, SessionKey } from '../activities/contracts';
import { historyWindow } from '../core/conversation/history-window';
import { classifyIntent } from '../core/intent/classify-intent';
import { decideByRules } from '../core/intent/decide-intent';
import { conversationRecord } from '../core/conversation/open-turn';
import * as steps from '../core/progress/step-messages';
import type { RagRun } from '../core/run/rag-run';
import { CONVERSATION_LOCAL } from './activity-options';
import { runErrorOf } from './failures';
import { noteModels } from './publish-state';
import { afterLocalActivity, stampNow } from './stamp-clock';
import { SESSION_TURNS_PATCH, asksIntent, patchedFor } from './start-patches';

const conversation = proxyLocalActivities<ConversationActivities>(CONVERSATION_LOCAL);

/**
 * Before the graph (docs/design/conversations.md): the session's earlier turns are read, and a question that refers
 * back is made to stand alone. The graph then runs on the standalone question; the answer writer also sees the
 * person's words and the window of earlier turns. A store that cannot be read makes this a first turn, said why.
 */
export async function openConversation(run: RagRun, key: SessionKey): Promise<void> {
  if (!patchedFor(run, SESSION_TURNS_PATCH)) return;
  const asked = run.question;
  try {
    const intent = asksIntent(run) ? { recognizeIntent: true } : {};
    const opened = await afterLocalActivity(run, () => conversation.openTurn({ ...key, question: asked, ...intent }), (result) => result.ranMs);
    noteModels(run, opened.producedBy);
    const { standaloneQuestion, answerConversation, record } = opened.data;
    run.intent = opened.data.intent ?? null;
    run.question = standaloneQuestion;
    run.answerConversation = answerConversation;
    run.conversation = record;
    if (record.condensedBy === 'model' || record.condensedBy === 'offline_rules') {
      run.step(steps.followUpCondensed(standaloneQuestion, record.turnsUsed.length), stampNow(run));
    }
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = runErrorOf(error).message;
    const why = `the session's earlier turns could not be read (${reason}); the question is used as asked`;
    run.conversation = conversationRecord(asked, 0, historyWindow([], 0), { standalone: asked, condensedBy: 'fallback', why });
    // Issue 44 §5: a greeting or a thanks needs no turns; the rules still answer it (a question about the conversation
    // without its turns is a knowledge query).
    if (asksIntent(run)) run.intent = decideByRules(classifyIntent(asked, { turnsBefore: 0 }), [], 0);
  }
}

/**
 * After the graph: the run's turn becomes the session's next one (answered or not), so the next question of the
 * session can refer to it. Recorded before the run settles, so whoever sees the outcome can ask the follow-up. A
 * store that fails for good loses this turn for later condensing only; the run and its outcome stand.
 */
export async function recordConversationTurn(run: RagRun, key: SessionKey, workflowId: string): Promise<void> {
  if (!run.conversation) return;
  const turn = {
    question: run.conversation.question,
    standaloneQuestion: run.question,
    answer: run.answer?.text ?? null,
    route: run.route,
    workflowId,
  };
  try {
    await afterLocalActivity(run, () => conversation.recordTurn({ ...key, turn }));
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('the session turn was not recorded', { sessionId: key.sessionId, error: runErrorOf(error).message });
  }
}
