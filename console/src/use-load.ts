import { useCallback, useEffect, useState } from 'react';
import type { ApiCallError } from './api';

export type Loaded<T> = { data: T | null; error: ApiCallError | Error | null; loading: boolean; reload: () => void };

/**
 * Loads one thing with the API and keeps the last good value while it reloads (so a refreshing list does not
 * flicker). `deps` restart it; an unmounted page aborts its request.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiCallError | Error | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    load(abort.signal)
      .then((value) => {
        setData(value);
        setError(null);
      })
      .catch((failure: unknown) => {
        if (abort.signal.aborted) return;
        setError(failure instanceof Error ? failure : new Error(String(failure)));
      })
      .finally(() => {
        if (!abort.signal.aborted) setLoading(false);
      });
    return () => abort.abort();
    // The caller names what the load depends on (deps), as with useEffect.
  }, [...deps, generation]);
  return { data, error, loading, reload };
}

/** Reloads every `everyMs` while `active` (a listed run or pass still running), and stops when it is not. */
export function useReloadWhile(active: boolean, reload: () => void, everyMs = 2000): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(reload, everyMs);
    return () => clearInterval(timer);
  }, [active, reload, everyMs]);
}
