import { CancelledFailure } from '@temporalio/common';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { closedOutcome } from '../core/run/run-closure';
import { Route } from '../core/schemas/graph-values';
import type { RagOutcome } from '../core/schemas/run-io';
import { outcomeQuery } from '../workflows/messages';
import { RAG_KB, RAG_ROUTE, RAG_SESSION_ID } from '../workflows/search-attributes';
import { runClosureOf } from './run-closure';

/*
 * Outcomes of runs Temporal closed from outside (issue 43 §6). A terminated run's last state still says "running" or
 * "awaiting_input" (its queries replay it, its RagStatus attribute stays), so the server's execution status decides.
 */

/**
 * The outcome `read` gives, as a run closed from outside reports it. Asked of the server only when the outcome could
 * be wrong (running, awaiting_input, or cancelled without its reason), or when `read` fails (no worker to answer the
 * query of a closed run): then a run closed from outside still says how it ended, from the server alone.
 */
export async function outcomeAsClosed(temporal: Client, workflowId: string, read: () => Promise<RagOutcome>): Promise<RagOutcome> {
  let outcome: RagOutcome;
  try {
    outcome = await read();
  } catch (error) {
    const closed = await closedOutcomeOf(temporal, workflowId, { query: false }).catch(() => null);
    if (closed) return closed;
    throw error;
  }
  if (outcome.status === 'completed' || (outcome.status === 'failed' && outcome.error?.type !== 'CANCELLED')) return outcome;
  const description = await temporal.workflow.getHandle(workflowId).describe().catch(() => null);
  const closure = description ? await runClosureOf(temporal, description) : null;
  return closure ? closedOutcome(outcome, closure) : outcome;
}

/**
 * The outcome of a run closed from outside, or null for a run that runs or ended on its own. With `query` (default),
 * the run's own last state is asked for first (a worker replays it), so the route and evidence it had stay.
 */
export async function closedOutcomeOf(temporal: Client, workflowId: string, { query = true }: { query?: boolean } = {}): Promise<RagOutcome | null> {
  const handle = temporal.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const closure = await runClosureOf(temporal, description);
  if (!closure) return null;
  const last = query ? await handle.query(outcomeQuery).catch(() => null) : null;
  return closedOutcome(last ?? bareOutcome(description), closure);
}

/** How long a waiting call whose run was cancelled waits for the run to close (it records its audit first). */
const CLOSE_WAIT_MS = 30_000;

const cancelledIn = (error: unknown): boolean => {
  for (let current = error; current instanceof Error; current = (current as { cause?: unknown }).cause) {
    if (current instanceof CancelledFailure) return true;
  }
  return false;
};

/**
 * The outcome a waiting `ask` or `answer` reports when its update failed because the run was closed from outside
 * (issue 43 §6), or null when it failed for another reason. A cancelled run fails its waiting updates before it has
 * closed (it records its audit first): the run is waited for, up to CLOSE_WAIT_MS. `cancelledOnly`: only for an
 * update the cancellation failed (an answer sent to a run that had already ended stays NOT_AWAITING_INPUT).
 */
export async function outcomeOfClosedWait(temporal: Client, workflowId: string, error: unknown, { cancelledOnly = false } = {}): Promise<RagOutcome | null> {
  const cancelled = cancelledIn(error);
  if (cancelledOnly && !cancelled) return null;
  if (cancelled) {
    const handle = temporal.workflow.getHandle(workflowId);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([handle.result().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }
  return closedOutcomeOf(temporal, workflowId).catch(() => null);
}

/** What the server alone says of a run: its ids, session, knowledge base and route from its search attributes. */
function bareOutcome(description: WorkflowExecutionDescription): RagOutcome {
  const attributes = description.typedSearchAttributes;
  const route = Route.safeParse(attributes.get(RAG_ROUTE));
  return {
    workflowId: description.workflowId,
    runId: description.runId,
    sessionId: attributes.get(RAG_SESSION_ID) ?? '',
    kb: attributes.get(RAG_KB) ?? null,
    status: 'failed',
    route: route.success ? route.data : null,
    retrieval_status: null,
    rag_trace: null,
    docs: [],
    hitl: null,
    hitl_resume_state: null,
    rounds: [],
    error: null,
    answer: null,
    answer_null_reason: 'run_failed',
    answer_error: null,
    degraded: null,
  };
}
