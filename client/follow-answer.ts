import type { AnswerStreamMessage } from '../core/schemas/answer-stream';
import type { RagOutcome } from '../core/schemas/run-io';
import { followRun, type FollowRunOptions } from './follow-run';
import type { AnswerStreamReader } from './read-answer-stream';
import type { RagClient } from './rag-client';

export { readAnswerStream, type AnswerStreamReader } from './read-answer-stream';

/**
 * Follows one round of a run's answer as it is written (issue 25 §2), until `pending` (the run's next outcome:
 * completed, failed or waiting) settles, handing each message to `onMessage`: `sources`, then `delta`s (and a
 * `discard` whenever what was shown is void), then — when the round ends with an answer — `final` with the run's own
 * answer, the record. Read errors are skipped (the next poll reads again; the final message repairs any gap). With
 * the run's progress steps as well, use followRun (client/follow-run.ts): one loop keeps both in order.
 *
 * const outcome = await followAnswer(rag.ask(q, { sessionId, workflowId }), rag, workflowId, reader, print);
 */
export function followAnswer(
  pending: Promise<RagOutcome>,
  rag: Pick<RagClient, 'getAnswerStream'> & Partial<Pick<RagClient, 'temporal'>>,
  workflowId: string,
  reader: AnswerStreamReader,
  onMessage: (message: AnswerStreamMessage) => void,
  options: FollowRunOptions = {},
): Promise<RagOutcome> {
  const noSteps = { getProgress: async () => [] };
  return followRun(pending, { ...noSteps, getAnswerStream: (id) => rag.getAnswerStream(id), temporal: rag.temporal }, workflowId, { answer: { reader, onMessage } }, options);
}
