/*
 * A ragtime worker names its default knowledge base in its Temporal identity (`<pid>@<host>/kb=<name>`), which
 * Temporal lists with a task queue's pollers: `ragtime doctor` compares it with the shell's default (issue 33 §1).
 * Read from the live worker, so it holds however the worker was started (make demo, by hand, elsewhere).
 */

const KB_SUFFIX = /\/kb=([A-Za-z_][A-Za-z0-9_]*)$/;

/** The identity's suffix for a default knowledge base. */
export const workerKbSuffix = (kb: string) => `/kb=${kb}`;

/** The default knowledge base a poller's identity names, or null (a worker of an earlier ragtime, another program). */
export function workerKbOf(identity: string): string | null {
  return KB_SUFFIX.exec(identity)?.[1] ?? null;
}
