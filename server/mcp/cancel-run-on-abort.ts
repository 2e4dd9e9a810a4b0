/**
 * While a tool call works on a run, cancels the run when the MCP client cancels the call (notifications/cancelled →
 * the handler's signal aborts). The SDK also aborts every handler when the connection closes; a dropped connection
 * does not cancel the run — it is durable, and get_run or answer_clarification pick it up from a new connection —
 * so the abort counts only while the server is still connected (checked once the SDK's close has run).
 */
export function cancelRunOnAbort(
  signal: AbortSignal,
  connected: () => boolean,
  cancelRun: () => Promise<unknown>,
  onError: (error: unknown) => void,
): { cancelled(): boolean; done(): Promise<void> } {
  let cancelled = false;
  let pending: Promise<void> = Promise.resolve();
  const onAbort = () => {
    // The SDK's close aborts the handlers first and drops its transport right after, in the same tick.
    setImmediate(() => {
      if (!connected()) return;
      cancelled = true;
      pending = cancelRun().then(() => undefined, onError);
    });
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    cancelled: () => cancelled,
    async done() {
      signal.removeEventListener('abort', onAbort);
      // Lets a deferred check queued by an abort run first (setImmediate callbacks run in order).
      await new Promise((resolve) => setImmediate(resolve));
      await pending;
    },
  };
}
