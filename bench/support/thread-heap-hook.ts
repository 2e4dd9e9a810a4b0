import { getHeapStatistics } from 'node:v8';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

/*
 * Preloaded (--import) into the bench worker process and, through the inherited execArgv, into each of its threads.
 * Workflows run in the SDK's workflow thread, whose V8 heap is its own: a GC in the main thread does not touch it and
 * process.memoryUsage().heapUsed does not count it. On "gc" over this channel, a thread runs a full GC (the process
 * has --expose-gc) and replies with its heap size, so the benchmark can report live workflow memory.
 */

export const THREAD_HEAP_CHANNEL = 'ragtime-bench-thread-heap';
export type ThreadHeap = { threadId: number; usedHeap: number; totalHeap: number };

if (!isMainThread) {
  const channel = new BroadcastChannel(THREAD_HEAP_CHANNEL);
  channel.onmessage = (event: unknown) => {
    if ((event as { data?: unknown }).data !== 'gc') return;
    global.gc?.();
    const heap = getHeapStatistics();
    channel.postMessage({ threadId, usedHeap: heap.used_heap_size, totalHeap: heap.total_heap_size } satisfies ThreadHeap);
  };
  // Never keep a thread alive just for this.
  channel.unref();
}
