import type { SessionTurn } from '../schemas/conversation';

/*
 * The earlier turns the answer step sees (issue 25 §1): the latest `max` (SESSION_TURNS, default 6), oldest first.
 * Older ones are dropped rather than summarized: a summary is one more model call on every turn of a long session,
 * and the standalone question already carries what retrieval needs. The record says how many were dropped.
 */

export type HistoryWindow = { turns: SessionTurn[]; dropped: number; dropReason: string | null };

export function historyWindow(turns: readonly SessionTurn[], max: number): HistoryWindow {
  const ordered = [...turns].sort((a, b) => a.turn - b.turn);
  const kept = max <= 0 ? [] : ordered.slice(-max);
  const dropped = ordered.length - kept.length;
  return { turns: kept, dropped, dropReason: dropped === 0 ? null : `older than the last ${max} turns (SESSION_TURNS=${max})` };
}
