import type { Client } from '@temporalio/client';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

/*
 * Runs from Temporal visibility, read from their search attributes only (issue 14 §10): a run whose memo is sealed
 * with a key this process lacks still lists, since search attributes are never encrypted. A run that Temporal
 * closed from outside — terminated, cancelled, timed out — shows that status, not the "awaiting_input" its
 * RagStatus attribute was left at.
 */

export type RunRow = {
  workflowId: string;
  started: string;
  session: string | null;
  /** RagStatus (running, awaiting_input, completed, failed), or how Temporal closed the run from outside. */
  status: string | null;
  route: string | null;
  complexity: string | null;
  rounds: number | null;
};

export type ListRunsFilter = { session?: string; status?: string; limit: number };

const quote = (value: string): string => `"${value.replace(/["\\]/g, '')}"`;
const Status = temporal.api.enums.v1.WorkflowExecutionStatus;
/** Closed by Temporal, not by the run itself: the run's own status attribute no longer says what happened. */
const CLOSED_FROM_OUTSIDE: Record<number, string> = {
  [Status.WORKFLOW_EXECUTION_STATUS_TERMINATED]: 'terminated',
  [Status.WORKFLOW_EXECUTION_STATUS_CANCELED]: 'cancelled',
  [Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT]: 'timed_out',
};

export async function listRuns(client: Client, filter: ListRunsFilter): Promise<RunRow[]> {
  const query = ['WorkflowType = "ragWorkflow"'];
  if (filter.session) query.push(`RagSessionId = ${quote(filter.session)}`);
  if (filter.status) query.push(`RagStatus = ${quote(filter.status)}`);
  // A run Temporal closed from outside keeps the RagStatus it had; it is no longer running or waiting.
  if (filter.status === 'running' || filter.status === 'awaiting_input') query.push('ExecutionStatus = "Running"');
  const rows: RunRow[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: query.join(' AND '),
      pageSize: filter.limit,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const raw of page.executions ?? []) {
      const attributes = decodeTypedSearchAttributes(raw.searchAttributes?.indexedFields);
      const get = (name: string) => attributes.getAll().find((pair) => pair.key.name === name)?.value;
      const text = (name: string) => (get(name) === undefined ? null : String(get(name)));
      rows.push({
        workflowId: raw.execution?.workflowId ?? '',
        started: new Date(tsToMs(raw.startTime)).toISOString(),
        session: text('RagSessionId'),
        status: CLOSED_FROM_OUTSIDE[raw.status ?? 0] ?? text('RagStatus'),
        route: text('RagRoute'),
        complexity: text('RagComplexity'),
        rounds: get('RagHitlRounds') === undefined ? null : Number(get('RagHitlRounds')),
      });
      if (rows.length >= filter.limit) break;
    }
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken && rows.length < filter.limit);
  // Visibility lists open runs before closed ones; people read a list of runs newest first.
  return rows.sort((a, b) => b.started.localeCompare(a.started));
}
