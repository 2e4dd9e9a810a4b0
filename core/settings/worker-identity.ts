/*
 * A ragtime worker names its model provider and its default knowledge base in its Temporal identity
 * (`<pid>@<host>/provider=<provider>/kb=<name>`), which Temporal lists with a task queue's pollers: `ragtime doctor`
 * compares the knowledge base with the shell's default (issue 33 §1), and a worker starting beside one of another
 * provider refuses (issue 43 §5). Read from the live worker, so it holds however the worker was started (make demo,
 * by hand, elsewhere).
 */

const KB_SUFFIX = /\/kb=([A-Za-z_][A-Za-z0-9_]*)$/;
const PROVIDER = /\/provider=([a-z][a-z0-9-]*)(?:\/|$)/;

/** The identity's suffix for a default knowledge base. */
export const workerKbSuffix = (kb: string) => `/kb=${kb}`;

/** The identity's part for a model provider (`offline`, `openai`, `local`). */
export const workerProviderPart = (provider: string) => `/provider=${provider}`;

/** The default knowledge base a poller's identity names, or null (a worker of an earlier ragtime, another program). */
export function workerKbOf(identity: string): string | null {
  return KB_SUFFIX.exec(identity)?.[1] ?? null;
}

/** The model provider a poller's identity names, or null (a worker of an earlier ragtime, another program). */
export function workerProviderOf(identity: string): string | null {
  return PROVIDER.exec(identity)?.[1] ?? null;
}
