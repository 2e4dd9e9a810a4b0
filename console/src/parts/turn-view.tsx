import { shownStatus } from '../../../core/run/shown-status';
import type { ShownTurn } from '../load-conversation';
import { hrefOf } from '../route';
import { AnswerView } from './answer-view';
import { ReadAsNote } from './read-as-note';
import { StatusBadge } from './status-badge';

/** The person's answers to the run's clarification questions, e.g. "you answered: Aurora X2". */
function Clarifications({ turn }: { turn: ShownTurn }) {
  const answers = (turn.outcome?.rounds ?? []).filter((round) => round.answer !== null);
  if (answers.length === 0) return null;
  return (
    <ul className="clarified" aria-label="clarifications">
      {answers.map((round) => (
        <li key={round.round}><span className="muted">{round.prompt ? `${round.prompt} — ` : ''}you answered:</span> <span lang="zh-CN">{round.answer}</span></li>
      ))}
    </ul>
  );
}

/** What the run answered: the answer with its citations, else the recorded text, else why there is none. */
function TurnAnswer({ turn, scope }: { turn: ShownTurn; scope: string }) {
  if (turn.outcome !== null) return <AnswerView outcome={turn.outcome} scope={scope} citationsOpen={false} />;
  if (turn.stored?.answer) return <p className="answer-text" lang="zh-CN">{turn.stored.answer}</p>;
  return <p className="muted">No answer{turn.stored?.route ? ` (route ${turn.stored.route})` : ''}.</p>;
}

/**
 * One settled turn of a conversation: the question as a bubble, how it was read when it was condensed, the
 * clarifications answered on the way, the answer with its citations, and a link to the run's page.
 */
export function TurnView({ turn, number }: { turn: ShownTurn; number: number }) {
  const route = turn.outcome?.route ?? turn.stored?.route ?? null;
  return (
    <article className="turn" data-workflow-id={turn.workflowId} aria-label={`turn ${number}`}>
      <p className="bubble question" lang="zh-CN">{turn.question}</p>
      <ReadAsNote question={turn.question} standalone={turn.stored?.standaloneQuestion ?? null} record={turn.outcome?.conversation ?? null} />
      <Clarifications turn={turn} />
      <div className="bubble reply">
        <TurnAnswer turn={turn} scope={`turn-${number}-`} />
        <p className="turn-meta">
          {turn.outcome && <StatusBadge status={shownStatus(turn.outcome)} />} {route ? `route ${route} · ` : ''}
          <a href={hrefOf.run(turn.workflowId)}>run details</a>
        </p>
      </div>
    </article>
  );
}
