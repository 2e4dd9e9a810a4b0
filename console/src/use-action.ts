import { useState } from 'react';

/**
 * One user action that calls the API (sign in, ask, answer): busy while it runs (buttons disable), and the error it
 * ended with, shown until the next try.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure instanceof Error ? failure : new Error(String(failure)));
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, run };
}
