import { intentTraceFragment, replyAnswer } from '../core/intent/decide-intent';
import * as steps from '../core/progress/step-messages';
import type { RagRun } from '../core/run/rag-run';
import { stampNow } from './stamp-clock';

/*
 * The intent step's branch (issue 44 §5): openTurn decided, with the session's turns, whether the question needs the
 * knowledge base. A greeting, a thanks or a question about the conversation settles on route `answer` with the reply
 * as its answer: no planner, retrieval, grade or answer writer runs, and the trace records `intent` and
 * `needs_retrieval: false`. Every other question runs the graph as before, its trace unchanged. Pure of commands: it
 * only reads what openTurn returned.
 */

/** True when the run was answered here (the caller skips the graph); false: run the graph. */
export function answeredWithoutRetrieval(run: RagRun): boolean {
  const decision = run.intent;
  if (decision === null || decision.needs_retrieval || decision.reply === null) return false;
  const asked = run.conversation?.question ?? run.question;
  run.step(steps.answeredWithoutRetrieval(decision.intent, decision.decided_by), stampNow(run));
  run.applyTrace(intentTraceFragment(decision, asked));
  run.route = 'answer';
  run.answer = replyAnswer(decision);
  return true;
}

/** True for a run answered without retrieval: the answer node has nothing to write. */
export const skipsAnswerNode = (run: RagRun): boolean => run.intent !== null && !run.intent.needs_retrieval && run.answer !== null;
