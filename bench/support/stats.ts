import { performance } from 'node:perf_hooks';

/** Latency summary of one measurement, in milliseconds; `runsPerSecond` is measured runs over wall time. */
export type Summary = {
  runs: number;
  /** Measured runs that threw (not in the latencies); their message is in `firstError`. */
  failed: number;
  firstError?: string;
  p50: number;
  p95: number;
  mean: number;
  max: number;
  wallMs: number;
  runsPerSecond: number;
};

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** `completed`: runs that finished within `wallMs` (default: the latencies' count, for a loop that ran only them). */
export function summarize(latencies: readonly number[], wallMs: number, completed = latencies.length): Summary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    runs: sorted.length,
    failed: 0,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean: sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    wallMs,
    runsPerSecond: (completed * 1000) / wallMs,
  };
}

/**
 * Sustained load: `concurrency` lanes run back to back without a pause. The first `warmup` runs warm up; the next
 * `measured` runs are measured (their latencies); lanes keep starting filler runs until the last measured run has
 * returned, so every measured run — the last ones too — ran with `concurrency` runs in flight. Throughput is every
 * completion (measured or not) inside the window from the first measured start to the last measured return.
 * Use warmup ≥ 2 × concurrency so that the window opens in the steady state. A run that throws is counted as failed
 * (not in the latencies or the throughput) and the loop goes on; a failed warm-up or filler run is only counted.
 */
export async function sustainedLoop(
  concurrency: number,
  warmup: number,
  measured: number,
  once: (index: number) => Promise<unknown>,
): Promise<Summary> {
  const latencies: number[] = [];
  const completions: number[] = [];
  let issued = 0;
  let measuredDone = 0;
  let failed = 0;
  let firstError: string | undefined;
  let windowStart = Number.NaN;
  let windowEnd = Number.NaN;
  const lane = async (): Promise<void> => {
    while (measuredDone < measured) {
      const index = issued;
      issued += 1;
      const isMeasured = index >= warmup && index < warmup + measured;
      const started = performance.now();
      if (index === warmup) windowStart = started;
      let ok = true;
      try {
        await once(index);
      } catch (error) {
        ok = false;
        if (isMeasured) failed += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
      const ended = performance.now();
      if (ok) completions.push(ended);
      if (isMeasured) {
        if (ok) latencies.push(ended - started);
        measuredDone += 1;
        if (measuredDone === measured) windowEnd = ended;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const completed = completions.filter((time) => time > windowStart && time <= windowEnd).length;
  return { ...summarize(latencies, windowEnd - windowStart, completed), failed, ...(firstError ? { firstError } : {}) };
}

/**
 * A closed loop: `concurrency` lanes, each starting its next run as soon as the previous one returns, until `total`
 * runs are done. Every run's latency is recorded; the wall time spans the first start to the last return.
 */
export async function closedLoop(
  total: number,
  concurrency: number,
  once: (index: number) => Promise<unknown>,
): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < total) {
      const index = next;
      next += 1;
      const started = performance.now();
      await once(index);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
  return { latencies, wallMs: performance.now() - started };
}

export const ms = (value: number): string => (Number.isNaN(value) ? '—' : value < 1 ? value.toFixed(3) : value < 10 ? value.toFixed(2) : value.toFixed(1));
export const rate = (value: number): string => (value >= 1000 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1));
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A Markdown table. */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
