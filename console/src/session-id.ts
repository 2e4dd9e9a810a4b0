/**
 * A new conversation's session id, e.g. "console-3f9c0a1b2d4e5f60718293a4b5c6d7e8": unguessable (a taken id is the one
 * thing POST /api/runs reveals, docs/API.md "Tenancy") and within the API's charset. From crypto.getRandomValues, not
 * crypto.randomUUID: the latter exists only in secure contexts, and the console is also served over plain HTTP on an
 * intranet host.
 */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
