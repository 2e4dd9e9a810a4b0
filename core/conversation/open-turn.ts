import type { AnswerConversation, ConversationRecord, SessionTurn, StandaloneQuestion } from '../schemas/conversation';
import { historyReference } from './history-reference';
import { historyWindow, type HistoryWindow } from './history-window';
import type { Condensed } from './offline-condense';

/*
 * How a run of turn n starts (issue 25 §1, docs/design/conversations.md): which earlier turns the answer step sees,
 * whether the question needs condensing at all, and the record of what was done. The condensing itself is the
 * provider's (FAST_MODEL, or the offline rules); these rules decide around it.
 */

export type TurnOpening = {
  window: HistoryWindow;
  /** The question as it stands, and why, when nothing needs condensing (no model is called); null: condense it. */
  asIs: Condensed | null;
};

export function openTurn(question: string, turns: readonly SessionTurn[], sessionTurns: number): TurnOpening {
  const window = historyWindow(turns, sessionTurns);
  const asIs = (why: string): Condensed => ({ standalone: question, condensedBy: 'none', why });
  if (turns.length === 0) return { window, asIs: asIs('no earlier turns') };
  if (historyReference(question) === null) return { window, asIs: asIs('the question stands alone') };
  return { window, asIs: null };
}

/** FAST_MODEL's reply as a condensation: a rewrite, or the question left as it was. */
export function condensedByModel(question: string, reply: StandaloneQuestion): Condensed {
  const standalone = reply.standalone_question.trim();
  if (!reply.depends_on_history || standalone === question.trim()) {
    return { standalone: question, condensedBy: 'model', why: 'FAST_MODEL found that the question stands alone' };
  }
  return { standalone, condensedBy: 'model', why: 'FAST_MODEL rewrote it from the earlier turns' };
}

/** A failed condensation: retrieval uses the question as the person typed it. */
export function condenseFallback(question: string, reason: string): Condensed {
  return { standalone: question, condensedBy: 'fallback', why: `condensing failed (${reason}); the question is used as asked` };
}

export function conversationRecord(question: string, turnsBefore: number, window: HistoryWindow, condensed: Condensed): ConversationRecord {
  return {
    question,
    turnsBefore,
    turnsUsed: window.turns.map((turn) => turn.turn),
    turnsDropped: window.dropped,
    dropReason: window.dropReason,
    standaloneQuestion: condensed.standalone,
    condensedBy: condensed.condensedBy,
    why: condensed.why,
  };
}

/** What the answer writer sees of the conversation; null on a first turn (the writer's input is then as before). */
export function answerConversation(question: string, window: HistoryWindow): AnswerConversation | null {
  if (window.turns.length === 0) return null;
  return { asked: question, turns: window.turns.map(({ turn, question: asked, answer }) => ({ turn, question: asked, answer })) };
}
