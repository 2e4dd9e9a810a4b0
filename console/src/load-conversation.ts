import { ApiCallError, type Api, type RagOutcome, type SessionTurn } from './api';
import type { RunListView } from './run-row';

/** A settled turn as the conversation shows it: what the store recorded and, when it could be read, the run's outcome. */
export type ShownTurn = {
  workflowId: string;
  question: string;
  /** The run's outcome (citations, how the question was condensed); null when the run can no longer be read. */
  outcome: RagOutcome | null;
  /** The session turn store's row (GET /api/sessions/{id}/turns); null for a turn settled on this page just now. */
  stored: SessionTurn | null;
};

/** A run of the conversation that has not settled: running, or waiting for the person's answer. */
export type OpenRun = { workflowId: string; question: string };

export type Conversation = { turns: ShownTurn[]; open: OpenRun | null };

const OPEN = new Set(['running', 'awaiting_input']);

/**
 * A session's conversation as the Ask page opens it: its completed turns (oldest first), each with its run's outcome,
 * and the newest run that has not settled yet (it has no turn until it does), so that a reload continues a waiting
 * clarification. A session nobody has asked in yet is 404 to the API (docs/API.md): here, a conversation not started.
 */
export async function loadConversation(api: Api, sessionId: string, signal: AbortSignal): Promise<Conversation> {
  let stored: SessionTurn[];
  try {
    stored = (await api.sessionTurns(sessionId, signal)).turns;
  } catch (failure) {
    if (failure instanceof ApiCallError && failure.status === 404) return { turns: [], open: null };
    throw failure;
  }
  // The turn store has the answer's text; the outcome adds its citations and the conversation record. A run whose
  // history is gone (Temporal's retention) still shows its recorded text.
  const [outcomes, rows] = await Promise.all([
    Promise.all(stored.map((turn) => api.run(turn.workflowId, signal).then((view) => view.outcome, () => null))),
    api.runs<RunListView>(new URLSearchParams({ session: sessionId, limit: '10' }), signal).then((list) => list.runs, () => []),
  ]);
  const recorded = new Set(stored.map((turn) => turn.workflowId));
  const open = rows.find((row) => OPEN.has(row.status ?? '') && !recorded.has(row.workflowId));
  return {
    turns: stored.map((turn, i) => ({ workflowId: turn.workflowId, question: turn.question, outcome: outcomes[i] ?? null, stored: turn })),
    open: open ? { workflowId: open.workflowId, question: open.question ?? '…' } : null,
  };
}
