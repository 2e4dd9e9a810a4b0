import { BroadcastChannel } from 'node:worker_threads';
import { createBenchWorker, effectiveTuning, type BenchWorkerConfig, type PayloadTraffic } from './bench-worker';
import { THREAD_HEAP_CHANNEL, type ThreadHeap } from './thread-heap-hook';

/*
 * Entry point of a benchmark worker in its own process (forked by worker-host.ts with tsx's loader and --expose-gc):
 * runs the bench worker and answers the parent over IPC with its memory and CPU use, forces a GC on request, and
 * shuts down cleanly on "stop".
 */

export type HostRequest = { type: 'usage' } | { type: 'gc' } | { type: 'stop' };
export type WorkerUsage = {
  rss: number;
  /** The main thread's V8 heap. */
  heapUsed: number;
  cpuMs: number;
  cachedWorkflows: number;
  gcAvailable: boolean;
  /** Payloads through the worker's data converter since it started. */
  payloads?: PayloadTraffic;
  /** Other threads' V8 heaps (the workflow thread), after a GC in each; only on "gc" with the heap hook loaded. */
  threads?: ThreadHeap[];
};
export type WorkerReply =
  | { type: 'ready'; pid: number; tuning: Record<string, unknown> }
  | ({ type: 'usage' } & WorkerUsage)
  | { type: 'stopped' }
  | { type: 'failed'; message: string };

const send = (reply: WorkerReply): void => {
  process.send?.(reply);
};

/** How many threads answered before: later calls wait for as many (a GC of a big heap takes seconds). */
let knownThreads = 0;

/** Asks every other thread to GC and report its heap (thread-heap-hook.ts); waits for the replies. */
async function collectThreads(): Promise<ThreadHeap[]> {
  const channel = new BroadcastChannel(THREAD_HEAP_CHANNEL);
  const replies = new Map<number, ThreadHeap>();
  channel.onmessage = (event: unknown) => {
    const data = (event as { data?: unknown }).data;
    if (typeof data === 'object' && data !== null && 'threadId' in data) replies.set((data as ThreadHeap).threadId, data as ThreadHeap);
  };
  channel.postMessage('gc');
  const deadline = Date.now() + (knownThreads > 0 ? 30_000 : 2_000);
  while (Date.now() < deadline && !(knownThreads > 0 && replies.size >= knownThreads)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  channel.close();
  knownThreads = Math.max(knownThreads, replies.size);
  return [...replies.values()].sort((a, b) => a.threadId - b.threadId);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as BenchWorkerConfig;
  const { worker, connection, traffic, closeStores } = await createBenchWorker(config);
  const running = worker.run();
  const usage = (): WorkerUsage => {
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    return {
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      cpuMs: (cpu.user + cpu.system) / 1000,
      cachedWorkflows: worker.getStatus().numCachedWorkflows,
      gcAvailable: typeof global.gc === 'function',
      payloads: structuredClone(traffic),
    };
  };
  process.on('message', (request: HostRequest) => {
    if (request.type === 'usage') send({ type: 'usage', ...usage() });
    if (request.type === 'gc') {
      void collectThreads().then((threads) => {
        global.gc?.();
        send({ type: 'usage', ...usage(), threads });
      });
    }
    if (request.type === 'stop' && worker.getState() === 'RUNNING') worker.shutdown();
  });
  // The benchmark went away (finished, failed or was interrupted): do not linger as an orphan worker.
  process.on('disconnect', () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  });
  send({ type: 'ready', pid: process.pid, tuning: effectiveTuning(worker) });
  await running;
  await connection.close();
  await closeStores();
  send({ type: 'stopped' });
  process.disconnect?.();
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
  process.disconnect?.();
});
