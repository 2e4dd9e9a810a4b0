import type { TimingChange } from '../schemas/run-comparison';
import type { RunDetail } from '../schemas/run-detail';

type Spent = { ms: number; count: number };

/** Time per stage type, scheduled → closed, summed over the run and its children (stages still open count 0 ms). */
function spentByType(detail: RunDetail): Map<string, Spent> {
  const spent = new Map<string, Spent>();
  for (const stage of detail.timings) {
    const entry = spent.get(stage.type) ?? { ms: 0, count: 0 };
    entry.ms += stage.closedAtMs === null ? 0 : stage.closedAtMs - stage.scheduledAtMs;
    entry.count += 1;
    spent.set(stage.type, entry);
  }
  return spent;
}

/** The run's duration ("total") and each stage type's time, where they differ (deltaMs = b − a). */
export function compareTimings(a: RunDetail, b: RunDetail): TimingChange[] {
  const [left, right] = [spentByType(a), spentByType(b)];
  const types = [...new Set([...left.keys(), ...right.keys()])].sort();
  const rows: TimingChange[] = [
    { type: 'total', aMs: a.durationMs, bMs: b.durationMs, deltaMs: b.durationMs - a.durationMs, countA: 1, countB: 1 },
    ...types.map((type) => {
      const [x, y] = [left.get(type), right.get(type)];
      return {
        type,
        aMs: x?.ms ?? null,
        bMs: y?.ms ?? null,
        deltaMs: x && y ? y.ms - x.ms : null,
        countA: x?.count ?? 0,
        countB: y?.count ?? 0,
      };
    }),
  ];
  return rows.filter((row) => row.deltaMs !== 0 || row.countA !== row.countB);
}
