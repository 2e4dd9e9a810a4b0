/** Resolves on SIGINT or SIGTERM: how a serving command knows to stop. */
export const untilStopped = (): Promise<void> =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
