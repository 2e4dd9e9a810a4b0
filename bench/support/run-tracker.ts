import type { Client } from '@temporalio/client';

/*
 * The runs a benchmark has started, so that none outlives it: their worker stops with the benchmark, and a run left
 * behind would stay "Running" on the server for good (a parked one for 7 days).
 *
 * - A run whose call fails on the client side (an RPC deadline while the run goes on) is terminated at once.
 * - `drain` waits, before a worker stops, until no run of its task queue is running: `ask` returns when the run
 *   settles, and a run may still have a workflow task to go after that (ragWorkflow records its audit just before it
 *   completes). Whatever still runs after the wait is terminated.
 * - `deadline` stops admitting runs, terminates the open ones and exits, for --max-seconds.
 */
export class RunTracker {
  private readonly open = new Set<string>();
  private closing = false;

  constructor(
    private readonly client: Client,
    private readonly reason: string,
  ) {}

  /** Records a run about to start; once the benchmark is closing, never returns (no new run starts). */
  async admit(workflowId: string): Promise<void> {
    if (this.closing) await new Promise<never>(() => undefined);
    this.open.add(workflowId);
  }

  finished(workflowId: string): void {
    this.open.delete(workflowId);
  }

  /** Terminates one run, if it still runs (a finished or unknown run is not an error here). */
  async terminate(workflowId: string): Promise<void> {
    await this.client.workflow
      .getHandle(workflowId)
      .terminate(this.reason)
      .catch(() => undefined);
    this.open.delete(workflowId);
  }

  /** Terminates every open run, a few at a time; returns how many there were. */
  async terminateAll(concurrency = 20): Promise<number> {
    const ids = [...this.open];
    for (let i = 0; i < ids.length; i += concurrency) await Promise.all(ids.slice(i, i + concurrency).map((id) => this.terminate(id)));
    return ids.length;
  }

  /**
   * Waits (at most `timeoutMs`) until no workflow of `taskQueue` is running, then terminates any that still are.
   * Returns how many had to be terminated. Uses the visibility store, which lags a run's close by a moment.
   */
  async drain(taskQueue: string, timeoutMs = 30_000): Promise<number> {
    const query = `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"`;
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if ((await this.client.workflow.count(query)).count === 0) return 0;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    let terminated = 0;
    for await (const run of this.client.workflow.list({ query })) {
      await this.client.workflow
        .getHandle(run.workflowId, run.runId)
        .terminate(this.reason)
        .catch(() => undefined);
      terminated += 1;
    }
    return terminated;
  }

  /** Stops admitting runs and terminates the open ones (for an early stop). */
  async close(): Promise<number> {
    this.closing = true;
    return this.terminateAll();
  }
}

/**
 * Calls `cleanup` (bounded to 30 s) and exits with code 2 once `seconds` have passed, so that a benchmark stays bounded
 * in time without leaving runs behind.
 */
export function deadline(seconds: number, cleanup: () => Promise<void>): void {
  const timer = setTimeout(() => {
    console.error(`bench: aborted after --max-seconds ${seconds}; cleaning up`);
    const bounded = Promise.race([cleanup(), new Promise((resolve) => setTimeout(resolve, 30_000))]);
    void bounded.finally(() => process.exit(2));
  }, seconds * 1000);
  timer.unref();
}
