import { useEffect, useState } from 'react';
import type { AnswerStreamMessage, Api, RagOutcome, RagStep } from '../api';
import { followProgress } from '../follow-progress';
import type { OpenRun } from '../load-conversation';
import { hrefOf } from '../route';
import { NOTHING_SHOWN, foldAnswer, type ShownAnswer } from '../shown-answer';
import { ErrorLine } from './error-line';
import { HitlForm } from './hitl-form';
import { ProgressList } from './progress-list';
import { StreamingAnswer } from './streaming-answer';

/**
 * The turn in progress: its question, the run's steps as they arrive (the SSE progress stream), the answer as it is
 * written when the server streams it (issue 25 §2), and, when the run asks back, its clarification answered here in
 * the conversation. Hands the outcome over once the run has settled (completed or failed); a run that asks again after
 * an answer stays here with its next question.
 */
export function LiveTurn({ api, run, onSettled }: { api: Api; run: OpenRun; onSettled: (run: OpenRun, outcome: RagOutcome) => void }) {
  const [steps, setSteps] = useState<RagStep[]>([]);
  const [waiting, setWaiting] = useState<RagOutcome | null>(null);
  const [streamError, setStreamError] = useState<Error | null>(null);
  // null until the first `answer` event: a server without the side channel sends none, and the turn is as before.
  const [answer, setAnswer] = useState<ShownAnswer | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    const received: RagStep[] = [];
    let shown = NOTHING_SHOWN;
    const handlers = {
      onStep: (step: RagStep) => {
        received.push(step);
        setSteps([...received]);
      },
      onAnswer: (message: AnswerStreamMessage) => {
        shown = foldAnswer(shown, message);
        setAnswer(shown);
      },
      onOutcome: (next: RagOutcome) => (next.status === 'awaiting_input' ? setWaiting(next) : onSettled(run, next)),
    };
    followProgress(api, run.workflowId, handlers, abort.signal)
      .catch((failure: unknown) => {
        if (!abort.signal.aborted) setStreamError(failure instanceof Error ? failure : new Error(String(failure)));
      });
    return () => abort.abort();
    // Not on onSettled: the page makes a new one each render, and following again would replay the stream for nothing.
  }, [api, run]);

  const answered = (next: RagOutcome) => (next.status === 'awaiting_input' ? setWaiting(next) : onSettled(run, next));
  return (
    <article className="turn live" data-workflow-id={run.workflowId} aria-label="the question being answered" aria-busy={waiting === null}>
      <p className="bubble question" lang="zh-CN">{run.question}</p>
      <ProgressList steps={steps} live={waiting === null && streamError === null} />
      {answer !== null && (answer.text !== '' || answer.sources.length > 0) && (
        <div className="bubble reply">
          <StreamingAnswer shown={answer} />
        </div>
      )}
      {waiting !== null && <HitlForm key={waiting.hitl?.round} api={api} workflowId={run.workflowId} hitl={waiting.hitl} onAnswered={answered} />}
      <ErrorLine error={streamError} />
      {streamError && <p><a href={hrefOf.run(run.workflowId)}>Follow the run on its page</a></p>}
    </article>
  );
}
