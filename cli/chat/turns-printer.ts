import type { SessionTurn } from '../../core/schemas/conversation';

/*
 * A session's earlier turns as `ragtime chat` shows them when it continues a session and on /history: each turn's
 * question, then its route and a short preview of its answer, so the person sees where the conversation stands.
 */

const ANSWER_PREVIEW = 80;

const preview = (text: string, length: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return [...flat].length > length ? `${[...flat].slice(0, length - 1).join('')}…` : flat;
};

/** Two lines per turn: `  n. question`, then `     route: answer preview` (or "no answer"). */
export function renderTurn(turn: SessionTurn): string[] {
  const answer = turn.answer === null ? '(no answer)' : preview(turn.answer, ANSWER_PREVIEW);
  return [`  ${turn.turn}. ${preview(turn.question, 120)}`, `     ${turn.route ?? '-'}: ${answer}`];
}

/**
 * The heading and the turns shown of `turns` (all the session's turns, oldest first): the last `show` of them, and how
 * many are left out.
 */
export function renderTurns(sessionId: string, turns: readonly SessionTurn[], show: number = turns.length): string[] {
  if (turns.length === 0) return [`session ${sessionId} has no turns yet`];
  const shown = show <= 0 ? [] : turns.slice(-show);
  const plural = turns.length === 1 ? 'turn' : 'turns';
  const heading =
    shown.length === turns.length
      ? `session ${sessionId}: ${turns.length} ${plural}`
      : `session ${sessionId}: ${turns.length} ${plural}, the last ${shown.length} shown (/history shows them all)`;
  return [heading, ...shown.flatMap(renderTurn)];
}
