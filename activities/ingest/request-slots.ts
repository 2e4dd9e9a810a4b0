/**
 * At most `size` tasks running at once, started in the order they were asked for (first in, first out): ingestion's
 * embedding requests of one file (EMBEDDING_CONCURRENCY), so that batch k's requests go out before batch k+1's.
 */
export function requestSlots(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A finished task hands its slot straight to the first waiter, so a newcomer cannot slip in between.
    if (running < size) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
