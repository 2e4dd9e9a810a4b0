import type { RerankReply, RerankTransport } from '../ports';
import { innermostReason } from './error-reason';

/**
 * The one error a rerank request can end in without a reply. Its message becomes the trace's `rerank_error`
 * verbatim (spec §6.6.2 step 8, "the exception text"), so it is written to be read there:
 * - timeout: `rerank request timed out after 5.0 s` (the configured RERANK_TIMEOUT_SECONDS in Python's float
 *   notation; the limit covers connecting, sending and reading the whole body);
 * - anything else: `rerank request failed: <cause>`, e.g. `rerank request failed: connect ECONNREFUSED 127.0.0.1:9`.
 */
export class RerankTransportError extends Error {
  override readonly name = 'RerankTransportError';
}

/** Python's repr of a float for whole numbers ("5.0"), else the shortest JS form ("0.25"). */
export function pythonFloatText(value: number): string {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

export type JinaRerankTransportOptions = {
  /** The fetch to use; Node's global fetch by default. */
  fetch?: typeof fetch;
};

/**
 * RerankTransport over HTTP for the Jina/Cohere-style `POST /v1/rerank` contract (spec §6.6.2 step 4): JSON body,
 * `Content-Type: application/json`, `Authorization: Bearer <RERANK_API_KEY>`, one attempt bounded by the timeout.
 * Any HTTP status comes back as a reply (the caller reads ≥ 400 as an error); only no reply at all throws.
 */
export function createJinaRerankTransport(options: JinaRerankTransportOptions = {}): RerankTransport {
  const send = options.fetch ?? fetch;
  return {
    async post({ endpoint, apiKey, timeoutSeconds, body }): Promise<RerankReply> {
      const signal = AbortSignal.timeout(Math.max(1, Math.round(timeoutSeconds * 1000)));
      try {
        const response = await send(endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
          body: JSON.stringify(body),
          signal,
        });
        return { status: response.status, body: await response.text() };
      } catch (error) {
        if (signal.aborted) {
          throw new RerankTransportError(`rerank request timed out after ${pythonFloatText(timeoutSeconds)} s`, {
            cause: error,
          });
        }
        throw new RerankTransportError(`rerank request failed: ${innermostReason(error)}`, { cause: error });
      }
    },
  };
}
