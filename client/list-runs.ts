import type { Client } from '@temporalio/client';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { decodeMapFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { RunRow } from '../core/schemas/run-row';
import type { HitlRequest } from '../core/schemas/run-io';

/*
 * Runs from Temporal visibility, read from their search attributes (issue 14 §10): a run whose memo is sealed
 * with a key this process lacks still lists, only without its question. A run that Temporal closed from outside —
 * terminated, cancelled, timed out — shows that status, not the "awaiting_input" its RagStatus attribute was left
 * at.
 */

export type { RunRow };

export type ListRunsFilter = {
  session?: string;
  status?: string;
  route?: string;
  kb?: string;
  /** Runs started at or after / at or before this ISO time. */
  since?: string;
  until?: string;
  limit: number;
  /** Keeps a row only if this says so (the HTTP API: the caller's tenant owns its session); rows are read on until `limit` pass. */
  include?: (row: RunRow) => Promise<boolean>;
  /** Reads the pending question of each waiting run (a query of the run, so a worker must be polling). */
  pendingOf?: (workflowId: string) => Promise<HitlRequest | null>;
};

/** Visibility pages read at most, so a filter that keeps almost nothing cannot scan forever. */
const MAX_PAGES = 20;

const quote = (value: string): string => `"${value.replace(/["\\]/g, '')}"`;
const Status = temporal.api.enums.v1.WorkflowExecutionStatus;
/** Closed by Temporal, not by the run itself: the run's own status attribute no longer says what happened. */
const CLOSED_FROM_OUTSIDE: Record<number, string> = {
  [Status.WORKFLOW_EXECUTION_STATUS_TERMINATED]: 'terminated',
  [Status.WORKFLOW_EXECUTION_STATUS_CANCELED]: 'cancelled',
  [Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT]: 'timed_out',
};

function queryOf(filter: ListRunsFilter): string {
  const query = ['WorkflowType = "ragWorkflow"'];
  if (filter.session) query.push(`RagSessionId = ${quote(filter.session)}`);
  if (filter.status) query.push(`RagStatus = ${quote(filter.status)}`);
  if (filter.route) query.push(`RagRoute = ${quote(filter.route)}`);
  if (filter.kb) query.push(`RagKb = ${quote(filter.kb)}`);
  if (filter.since) query.push(`StartTime >= ${quote(filter.since)}`);
  if (filter.until) query.push(`StartTime <= ${quote(filter.until)}`);
  // A run Temporal closed from outside keeps the RagStatus it had; it is no longer running or waiting.
  if (filter.status === 'running' || filter.status === 'awaiting_input') query.push('ExecutionStatus = "Running"');
  return query.join(' AND ');
}

/** The route in brief, from what the search attributes hold: complexity, clarification rounds, route. */
function briefPath(complexity: string | null, rounds: number | null, route: string | null, status: string | null): string[] {
  return [
    ...(complexity ? [complexity] : []),
    ...(rounds ? [`${rounds} clarification${rounds === 1 ? '' : 's'}`] : []),
    ...(status === 'awaiting_input' ? ['waiting for a person'] : route ? [route] : []),
  ];
}

type Execution = temporal.api.workflow.v1.IWorkflowExecutionInfo;

async function rowOf(client: Client, raw: Execution): Promise<RunRow> {
  const attributes = decodeTypedSearchAttributes(raw.searchAttributes?.indexedFields);
  const get = (name: string) => attributes.getAll().find((pair) => pair.key.name === name)?.value;
  const text = (name: string) => (get(name) === undefined ? null : String(get(name)));
  // A memo sealed with a key this process lacks does not decode: the row lists without its question.
  const memo = await decodeMapFromPayloads(client.options.loadedDataConverter, raw.memo?.fields).catch(() => undefined);
  const startedAt = new Date(tsToMs(raw.startTime)).toISOString();
  const closedMs = raw.closeTime ? tsToMs(raw.closeTime) : null;
  const status = CLOSED_FROM_OUTSIDE[raw.status ?? 0] ?? text('RagStatus');
  const rounds = get('RagHitlRounds') === undefined ? null : Number(get('RagHitlRounds'));
  return {
    workflowId: raw.execution?.workflowId ?? '',
    started: startedAt,
    startedAt,
    closedAt: closedMs === null ? null : new Date(closedMs).toISOString(),
    durationMs: closedMs === null ? null : Math.max(0, closedMs - tsToMs(raw.startTime)),
    session: text('RagSessionId'),
    status,
    route: text('RagRoute'),
    complexity: text('RagComplexity'),
    rounds,
    kb: text('RagKb'),
    question: typeof memo?.question === 'string' ? memo.question : null,
    path: briefPath(text('RagComplexity'), rounds, text('RagRoute'), status),
    hitl: null,
  };
}

export async function listRuns(client: Client, filter: ListRunsFilter): Promise<RunRow[]> {
  const rows: RunRow[] = [];
  let nextPageToken: Uint8Array | undefined;
  let pages = 0;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: queryOf(filter),
      pageSize: filter.limit,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    pages += 1;
    for (const raw of page.executions ?? []) {
      const row = await rowOf(client, raw);
      if (filter.include && !(await filter.include(row))) continue;
      rows.push(row);
      if (rows.length >= filter.limit) break;
    }
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken && rows.length < filter.limit && pages < MAX_PAGES);
  const { pendingOf } = filter;
  if (pendingOf) {
    await Promise.all(rows.filter((row) => row.status === 'awaiting_input').map(async (row) => (row.hitl = await pendingOf(row.workflowId).catch(() => null))));
  }
  // Visibility lists open runs before closed ones; people read a list of runs newest first.
  return rows.sort((a, b) => b.started.localeCompare(a.started));
}
