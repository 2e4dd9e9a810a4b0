import { Context } from '@temporalio/activity';
import { activitySignal } from '../../activities/activity-signal';
import type { ChatModels } from '../../activities/ports';
import { httpModels } from './http-harness';
import { grade, plannerResult } from './scenario';

/*
 * The HTTP harness' models (test/support/http-harness.ts) with model calls that hold until their activity is
 * cancelled (issue 43 §6): a question with HOLD is graded by a call that waits on the activity's cancellation signal,
 * read as a model adapter reads it (activities/activity-signal.ts); a question with SPLIT is planned as two such
 * sub-questions (two child runs). Each held call is recorded with the run it belongs to and when its signal aborted it.
 */

export const HOLD = '挂住';
/** A complex marker (spec §4.2.1): the planner is asked, and splits. */
export const SPLIT = '比较';
/** How long a held call waits when nothing cancels it. */
const HOLD_MAX_MS = 60_000;

export type HeldCall = { workflowId: string; question: string; startedAt: number; abortedAt: number | null };

export function heldModels(): { models: ChatModels; held: HeldCall[] } {
  const held: HeldCall[] = [];
  const models: ChatModels = {
    ...httpModels,
    async planComplexity(question, report) {
      if (!question.includes(SPLIT)) return httpModels.planComplexity(question, report);
      const tag = question.replace(SPLIT, '');
      return plannerResult('complex', 'held test', [`${HOLD}${tag}甲是什么属性？`, `${HOLD}${tag}乙是什么属性？`]);
    },
    async gradeEvidence(question, context, evidence, report, options) {
      if (!question.includes(HOLD)) return httpModels.gradeEvidence(question, context, evidence, report, options);
      const signal = activitySignal();
      if (!signal) throw new Error('a model call inside an activity has no cancellation signal');
      const call: HeldCall = { workflowId: Context.current().info.workflowExecution?.workflowId ?? '', question, startedAt: Date.now(), abortedAt: null };
      held.push(call);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, HOLD_MAX_MS).unref();
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          call.abortedAt = Date.now();
          reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
        }, { once: true });
      });
      return grade('strong', 'sufficient', 'none', 'answer', 0.95);
    },
  };
  return { models, held };
}
