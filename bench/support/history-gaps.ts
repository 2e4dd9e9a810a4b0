import type { Client } from '@temporalio/client';
import { percentile, table } from './stats';

/*
 * Where a run's time goes, read from the server's own event timestamps: the gap between each pair of consecutive
 * events of a history, labelled by the two event types, aggregated (p50) over several runs. On a sequential path
 * (the simple scenario) the gaps add up to the run's server-side duration, so they read as a breakdown:
 * "workflow task scheduled → started" is task dispatch (matching + the worker's poll), "started → completed" is the
 * worker's processing plus the completion RPC, and so on.
 */

/** Event types of ragWorkflow histories (temporal.api.enums.v1.EventType), with short names for the report. */
const EVENT_NAMES: Record<number, string> = {
  1: 'workflow started',
  2: 'workflow completed',
  5: 'WFT scheduled',
  6: 'WFT started',
  7: 'WFT completed',
  10: 'activity scheduled',
  11: 'activity started',
  12: 'activity completed',
  17: 'timer started',
  25: 'marker',
  26: 'signaled',
  29: 'child initiated',
  31: 'child started',
  32: 'child completed',
  40: 'search attributes upserted',
  41: 'update accepted',
  43: 'update completed',
  46: 'memo modified',
  47: 'update admitted',
};

const nameOf = (type: number | null | undefined): string => EVENT_NAMES[type ?? 0] ?? `event type ${type}`;

type Timestamp = { seconds?: { toNumber(): number } | number | string | null; nanos?: number | null } | null | undefined;
const millis = (time: Timestamp): number => {
  const seconds = time?.seconds;
  const whole = typeof seconds === 'object' && seconds !== null ? seconds.toNumber() : Number(seconds ?? 0);
  return whole * 1000 + (time?.nanos ?? 0) / 1e6;
};

export type GapReport = { runs: number; durationP50: number; rows: Array<{ transition: string; p50: number; count: number }> };

/** Gaps between consecutive events, per transition label, over the given runs' histories. */
export async function historyGaps(client: Client, workflowIds: readonly string[]): Promise<GapReport> {
  const gaps = new Map<string, number[]>();
  const order: string[] = [];
  const durations: number[] = [];
  for (const workflowId of workflowIds) {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const first = events[0];
    const last = events[events.length - 1];
    if (!first || !last) continue;
    durations.push(millis(last.eventTime) - millis(first.eventTime));
    events.slice(1).forEach((event, i) => {
      const previous = events[i];
      if (!previous) return;
      // Same-task events (written together) are numbered by position, so repeated steps stay apart.
      const label = `${nameOf(previous.eventType)} → ${nameOf(event.eventType)} #${i + 1}`;
      if (!gaps.has(label)) {
        gaps.set(label, []);
        order.push(label);
      }
      gaps.get(label)?.push(millis(event.eventTime) - millis(previous.eventTime));
    });
  }
  const sortedDurations = [...durations].sort((a, b) => a - b);
  return {
    runs: durations.length,
    durationP50: percentile(sortedDurations, 50),
    rows: order.map((transition) => {
      const values = [...(gaps.get(transition) ?? [])].sort((a, b) => a - b);
      return { transition, p50: percentile(values, 50), count: values.length };
    }),
  };
}

/** The report as a table, leaving out transitions under 0.5 ms (events written by the same task). */
export function gapTable(report: GapReport): string {
  const rows = report.rows.filter((row) => row.p50 >= 0.5).map((row) => [row.transition, row.p50.toFixed(1), String(row.count)]);
  return table(['consecutive events (position in history)', 'p50 gap ms', 'runs'], rows);
}
