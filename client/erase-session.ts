import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { status as grpcStatus } from '@grpc/grpc-js';
import { MAX_SUB_QUESTIONS } from '../core/schemas/model-outputs';
import { subQuestionWorkflowId } from '../workflows/messages';

/** What one erasure removed, per store (issue 35 §2). A second erasure of the same session reports zeros. */
export type SessionErasure = {
  sessionId: string;
  /** Runs that were still open (waiting for a person, or running): cancelled, and closed, before anything was erased. */
  cancelledRuns: string[];
  /** Workflow executions deleted from Temporal, history and visibility (sub-question children included), seen gone. */
  temporalRuns: number;
  /**
   * Executions whose deletion Temporal accepted but had not carried out when the wait ended: the server deletes a
   * closed run once its close is acknowledged (up to about 30 s on the dev server). Empty when all are gone.
   */
  temporalPending: string[];
  sessionTurns: number;
  auditInvocations: number;
  auditEvents: number;
  answerStreamEvents: number;
};

/** What the eraser needs of the stores (the SQL stores of activities/adapters have it; so may an app's own). */
export type SessionEraserDeps = {
  temporal: Client;
  audit: { eraseSession(sessionId: string): Promise<{ invocations: number; events: number; workflowIds: string[] }> };
  turns: { eraseSession(sessionId: string, tenant: string | null): Promise<{ turns: number; workflowIds: string[] }> };
  answerStream: { eraseRuns(workflowIds: readonly string[]): Promise<number> };
  /** How long to wait for a cancelled run to close (ms). */
  closeTimeoutMs?: number;
  /** How long to wait for Temporal to carry out the deletions (ms). */
  deleteTimeoutMs?: number;
};

const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

const isNotFound = (error: unknown): boolean =>
  error instanceof WorkflowNotFoundError || (error as { code?: number } | null)?.code === grpcStatus.NOT_FOUND;

/**
 * Erases a session from every store that keeps it: its runs from Temporal (history and visibility, children with
 * their parent), its turns, its audit rows and its runs' answer-stream events. A run still open is cancelled first
 * and waited for, so nothing it writes lands after the erasure; its cancellation is audited, then erased with the
 * rest. Idempotent: what is gone is not found again. The session's owner row stays (no content: the id stays the
 * tenant's, so another tenant cannot claim it and read what an agent still sends to it).
 *
 * `tenant`: erase that tenant's turns only (the HTTP API, after its ownership check); null erases the id for every
 * tenant (the operator's CLI).
 */
export function createSessionEraser({ temporal, audit, turns, answerStream, closeTimeoutMs = 30_000, deleteTimeoutMs = 90_000 }: SessionEraserDeps) {
  /** Every run that names the session: by its search attribute, and by what the stores recorded of it. */
  async function runsOf(sessionId: string): Promise<Set<string>> {
    const ids = new Set<string>();
    for await (const run of temporal.workflow.list({ query: `RagSessionId = ${quote(sessionId)}` })) ids.add(run.workflowId);
    return ids;
  }

  async function cancelOpen(workflowIds: Iterable<string>): Promise<string[]> {
    const cancelled: string[] = [];
    for (const workflowId of workflowIds) {
      const handle = temporal.workflow.getHandle(workflowId);
      const description = await handle.describe().catch((error: unknown) => (isNotFound(error) ? null : Promise.reject(error)));
      if (description?.status.name !== 'RUNNING') continue;
      await handle.cancel();
      const closed = await Promise.race([
        handle.result().then(() => true, () => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), closeTimeoutMs).unref()),
      ]);
      if (!closed) await handle.terminate('erased: its session was erased and the cancellation did not close it in time');
      cancelled.push(workflowId);
    }
    return cancelled;
  }

  /** The run and its sub-question children (ids <run>/sub-<i>), those that exist. */
  async function withChildren(workflowId: string): Promise<string[]> {
    const children: string[] = [];
    for (let index = 1; index <= MAX_SUB_QUESTIONS; index += 1) {
      const childId = subQuestionWorkflowId(workflowId, index);
      if (await exists(childId)) children.push(childId);
    }
    return [...children, workflowId];
  }

  async function deleteExecution(workflowId: string): Promise<boolean> {
    try {
      await temporal.workflowService.deleteWorkflowExecution({ namespace: temporal.options.namespace, workflowExecution: { workflowId } });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  const exists = (workflowId: string): Promise<boolean> =>
    temporal.workflow.getHandle(workflowId).describe().then(() => true, (error: unknown) => (isNotFound(error) ? false : Promise.reject(error)));

  /** The executions still there once Temporal has had `deleteTimeoutMs` to delete them. */
  async function stillThere(workflowIds: string[]): Promise<string[]> {
    const until = Date.now() + deleteTimeoutMs;
    let left = workflowIds;
    for (;;) {
      const present = await Promise.all(left.map(exists));
      left = left.filter((_, index) => present[index]);
      if (left.length === 0 || Date.now() >= until) return left;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  return {
    async erase(sessionId: string, tenant: string | null): Promise<SessionErasure> {
      const runs = await runsOf(sessionId);
      const cancelledRuns = await cancelOpen(runs);
      const turnRows = await turns.eraseSession(sessionId, tenant);
      const auditRows = await audit.eraseSession(sessionId);
      for (const workflowId of [...turnRows.workflowIds, ...auditRows.workflowIds]) runs.add(workflowId);
      const executions = (await Promise.all([...runs].map(withChildren))).flat();
      const answerStreamEvents = await answerStream.eraseRuns(executions);
      const requested: string[] = [];
      for (const workflowId of executions) if (await deleteExecution(workflowId)) requested.push(workflowId);
      const temporalPending = await stillThere(requested);
      return {
        sessionId,
        cancelledRuns,
        temporalRuns: requested.length - temporalPending.length,
        temporalPending,
        sessionTurns: turnRows.turns,
        auditInvocations: auditRows.invocations,
        auditEvents: auditRows.events,
        answerStreamEvents,
      };
    },
  };
}

export type SessionEraser = ReturnType<typeof createSessionEraser>;
