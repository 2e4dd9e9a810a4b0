/*
 * A fetch for the OpenAI SDK that rewrites the error bodies of providers that do not send OpenAI's shape into it
 * (issue 24 §1; docs/PROVIDERS.md):
 * - Gemini's compatibility layer answers a JSON array, [{"error": {"code": 400, "message": …, "details": […]}}];
 * - old vLLM a flat {"object": "error", "message": …, "code": 400};
 * - FastAPI-style servers {"detail": …}.
 * openai-node 7 turns such a body into a message that is the body's JSON text (for Gemini, the whole array with its
 * details) and leaves code, param and type empty; rewritten, the message the ladder records and quotes in errors is
 * the provider's own sentence, with its code and param. Successful replies and OpenAI-shaped errors pass untouched.
 */

type Fetch = typeof fetch;

const messageOf = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.message === 'string') return record.message;
    if (record.detail !== undefined) return typeof record.detail === 'string' ? record.detail : JSON.stringify(record.detail);
  }
  return undefined;
};

/** The body in OpenAI's `{"error": {...}}` shape, or null when it already is (or is not JSON). */
export function openAiErrorBody(text: string): { error: Record<string, unknown> } | null {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return null;
  }
  const first = Array.isArray(body) ? (body[0] as unknown) : body;
  if (first === null || typeof first !== 'object') return null;
  const record = first as Record<string, unknown>;
  if (record.error !== null && typeof record.error === 'object' && !Array.isArray(body)) return null;
  if (typeof record.error === 'string' && !Array.isArray(body)) return null; // LM Studio: the SDK quotes it, readably
  const inner = record.error !== null && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : record;
  const message = messageOf(inner);
  if (message === undefined) return null;
  return { error: { message, type: inner.type ?? inner.status ?? null, param: inner.param ?? null, code: inner.code ?? null } };
}

export function normalizingFetch(inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    const text = await response.text();
    const normalized = openAiErrorBody(text);
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(normalized === null ? text : JSON.stringify(normalized), { status: response.status, statusText: response.statusText, headers });
  };
}
