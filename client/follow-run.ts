import { AnswerStreamView } from '../core/answer-stream/answer-stream-view';
import type { RagStep } from '../core/progress/rag-step';
import type { AnswerStreamMessage } from '../core/schemas/answer-stream';
import type { RagOutcome } from '../core/schemas/run-io';
import { knowsGeneration, pushCollector, readAnswerStream, type AnswerStreamReader } from './read-answer-stream';
import { FINAL_READS, stepFlusher } from './follow-progress';
import type { RagClient } from './rag-client';
import { childrenStepsLive, runMark } from './run-mark';

export type RunListener = {
  /** Each progress step once, counted from 1 (client/follow-progress.ts). Pass `seen` to carry on after an answer. */
  steps?: { onStep(step: RagStep, count: number): void | Promise<void>; seen?: Set<string> };
  /** The answer as it is written (issue 25 §2): sources, deltas, discards, then `final` when the round answers. */
  answer?: { reader: AnswerStreamReader; onMessage(message: AnswerStreamMessage): void };
};

/** The fallback read's pace when the side channel pushes and no progress steps are followed (ms). */
export const PUSHED_INTERVAL_MS = 1000;

export type FollowRunOptions = {
  /** How often the run (and the answer's side channel) is read (ms). */
  intervalMs?: number;
  /**
   * With a `rag` that has its Temporal client: before asking the run (steps, the answer's generation: queries through
   * a worker), read its history length (a describe, the server alone) and ask only when it grew (issue 47 §3).
   * Default true; false asks at every read, as before.
   */
  askOnChange?: boolean;
};

/**
 * Follows one round of a run until `pending` (its next outcome) settles, and hands a listener what happens in the
 * order it happened (issue 33 §3): each read hands over the progress steps first, then the answer's messages, so a
 * step the run published before it wrote its answer reaches the listener before the answer's sources and text; once
 * the outcome is here, the last steps, then the answer's last text and `final` (the record, with its checked
 * citations).
 * One loop reads both, where two loops at their own pace (the progress every 250 ms, the answer every 100 ms) used
 * to print an answer before the steps that led to it. Read errors are skipped (the next read resumes).
 *
 * const outcome = await followRun(rag.ask(q, { workflowId }), rag, workflowId, { steps: { onStep: print } });
 */
export async function followRun(
  pending: Promise<RagOutcome>,
  rag: Pick<RagClient, 'getProgress' | 'getAnswerStream'> & Partial<Pick<RagClient, 'temporal'>>,
  workflowId: string,
  listener: RunListener,
  { intervalMs = 100, askOnChange = true }: FollowRunOptions = {},
): Promise<RagOutcome> {
  let lastSteps: RagStep[] = [];
  const readSteps = () => rag.getProgress(workflowId).then((steps) => ((lastSteps = steps), steps));
  const flushSteps = listener.steps ? stepFlusher(readSteps, listener.steps.onStep, listener.steps.seen) : async () => true;
  const answer = listener.answer;
  const view = new AnswerStreamView();
  const emit = (messages: AnswerStreamMessage[]) => messages.forEach((message) => answer?.onMessage(message));
  const held: AnswerStreamMessage[] = [];
  // Issue 36 §3: with a pushing side channel (PostgreSQL, a SQLite file's socket), a write wakes the loop at once;
  // the interval stays as the fallback (and as the pace of the progress steps, which only the run's query gives).
  // Without steps to follow, the fallback slows to PUSHED_INTERVAL_MS: a push says when there is text to read.
  const pushes = pushCollector();
  const unsubscribe = answer?.reader.onAppend?.(workflowId, (generation, events) => {
    pushes.push(generation, events);
    wake();
  });
  const pace = unsubscribe && !listener.steps ? Math.max(intervalMs, PUSHED_INTERVAL_MS) : intervalMs;
  // Issue 47 §3: the run's mark when it was last asked; while it stays, a read asks the run nothing. Only for reads
  // at a short pace (the steps, or a side channel that does not push): a pushed answer alone is read about once a
  // second, when the run has nearly always moved, and the describe would only add to the question (measured:
  // docs/PERFORMANCE.md, "Cheaper per question on the single-machine default").
  const marked = askOnChange && rag.temporal && pace < PUSHED_INTERVAL_MS ? { temporal: rag.temporal } : null;
  let mark: string | null = null;
  const unchangedSinceAsked = async (): Promise<boolean> => {
    if (!marked || childrenStepsLive(lastSteps)) return false;
    const now = await runMark(marked, workflowId);
    const unchanged = now !== null && now === mark;
    mark = now;
    return unchanged;
  };
  // The first read and the last ones trust the pushes (client/read-answer-stream.ts): with a pushing side channel, a
  // run is asked which generation it shows once per generation, not also at the start and the end (issue 36 §2).
  let trustPushes = true;
  const readAnswer = (runUnchanged: boolean) =>
    answer ? readAnswerStream(view, rag, workflowId, answer.reader, (messages) => held.push(...messages), { ...pushes.take(), trustPushes, runUnchanged }) : Promise.resolve(true);
  /**
   * The answer is read before the steps and shown after them: the run names the generation it shows in the same
   * workflow task that logs the step before it, so every step logged before what this read saw is in the steps read
   * next (reading the steps first would let a task land between the two reads, and its answer pass its step).
   */
  const read = async () => {
    // Only a read that would ask the run reads its mark first (a push of the shown generation asks nothing); the
    // reads after the run settled always ask: the last steps and the answer's end are in the outcome's task.
    const wouldAsk = listener.steps !== undefined || (answer !== undefined && !knowsGeneration(view, answer.reader, { written: pushes.written, trustPushes }));
    const unchanged = !settled && wouldAsk && (await unchangedSinceAsked());
    const answered = await readAnswer(unchanged);
    const stepsRead = unchanged ? true : await flushSteps();
    emit(held.splice(0));
    return answered && stepsRead;
  };
  let settled = false;
  let wake: () => void = () => undefined;
  const loop = (async () => {
    while (!settled) {
      await read();
      trustPushes = false;
      if (!settled && pushes.written === undefined) await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pace);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  try {
    const outcome = await pending;
    settled = true;
    // The outcome is here: no waiting out the interval before the last reads.
    wake();
    await loop;
    trustPushes = true;
    // The last steps and what the writer published before the run settled (read again, waiting longer each time, if
    // either read fails: a busy store, a query of the closed run timing out), then the record.
    for (let tries = 1; !(await read()) && tries < FINAL_READS; tries += 1) await new Promise((resolve) => setTimeout(resolve, intervalMs * 2 ** tries));
    if (answer) emit(view.finish(outcome.status === 'completed' ? outcome.answer : null, outcome.docs));
    return outcome;
  } finally {
    settled = true;
    unsubscribe?.();
    wake();
  }
}
