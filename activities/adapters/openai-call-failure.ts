import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { RagError } from '../../core/errors';
import { OUTPUT_MODE_SENDS, type OutputMode, type OutputModeSetting } from '../../core/model-output/output-mode';
import type { Refused } from '../../core/model-output/refusal';
import { redactSecrets } from '../../core/text/redact-secrets';

/*
 * What a failed chat-completions request means for the run. Retry layering: the SDK makes one request per call
 * (maxRetries 0 by default) and Temporal's MODEL_CALL policy (workflows/activity-options.ts) does the backoff, so
 * retries are never multiplied and every attempt is visible in the history.
 *
 * - transient (network, timeout, 408/409/429, 5xx) → retryable ApplicationFailure SERVICE_UNAVAILABLE; a Retry-After
 *   becomes its nextRetryDelay. Only an ApplicationFailure can carry that delay, hence not a RagError.
 * - rejected key (401/403) or unknown model or path (404) → RagError MODEL_NOT_CONFIGURED (terminal);
 * - any other 4xx → RagError INVALID_CONFIG. The structured-output ladder (openai-structured-call.ts) has already
 *   stepped down on refusals it may handle; what reaches here is a forced MODEL_OUTPUT_MODE or MODEL_TEMPERATURE the
 *   endpoint refuses, the bottom rung refused, or another bad request, and the message says which and what to set.
 * Messages name the model, the schema and the endpoint host, never the key (any echo of it is masked).
 */

export type FailedCall = {
  model: string;
  /** FAST_MODEL or GRADE_MODEL: the variable to fix when the endpoint does not know the model. */
  modelVariable: string;
  schema: string;
  host: string;
  timeoutMs: number;
  /** How long the request ran before it failed. */
  elapsedMs: number;
  apiKey: string;
  /** Where the ladder stood when the request failed (absent: no ladder, as in older callers). */
  ladder?: { refused: Refused | null; mode: OutputMode; temperature: number | null; outputSetting: OutputModeSetting; temperatureSet: boolean };
};

/** Longest Retry-After honoured: beyond it, MODEL_CALL's own backoff decides. */
const MAX_RETRY_AFTER_MS = 60_000;

export function modelCallFailure(error: unknown, call: FailedCall): Error {
  if (!(error instanceof APIError)) return error instanceof Error ? error : new Error(String(error));
  // Whole tokens only: a short key must not cut the words of a message (issue 33 §5).
  const mask = (text: string) => redactSecrets(text, [call.apiKey]);
  const what = `${call.model} (${call.schema}) at ${call.host}`;
  // The elapsed time also catches a timeout whose AbortError the SDK could not recognise (e.g. an abort raised in
  // another realm, as under jest) and reported as a plain connection error.
  if (error instanceof APIConnectionTimeoutError || (error instanceof APIConnectionError && call.elapsedMs >= call.timeoutMs)) {
    return transient(`${what} did not answer within ${call.timeoutMs} ms`);
  }
  if (error instanceof APIConnectionError) {
    return transient(mask(`${what} is unreachable: ${error.message}${causeText(error)}`));
  }
  const status = error.status ?? 0;
  // The SDK's message starts with the status ("429 Rate limit reached…").
  const detail = mask(`${error.message}${error.requestID ? ` (request ${error.requestID})` : ''}`);
  if (status === 408 || status === 409 || status === 429 || status >= 500) {
    return transient(`${what} failed: ${detail}`, retryAfterMs(error.headers));
  }
  if (status === 401 || status === 403) {
    return new RagError('MODEL_NOT_CONFIGURED', `${what} rejected OPENAI_API_KEY: ${detail}; set a valid key`);
  }
  if (status === 404) {
    return new RagError('MODEL_NOT_CONFIGURED', `${what} was not found: ${detail}; check ${call.modelVariable} and OPENAI_BASE_URL`);
  }
  return new RagError('INVALID_CONFIG', `${what} refused the request: ${detail}; ${refusalFix(call)}`);
}

/** What to set after a refusal the ladder could not handle (issue 24 §1). */
function refusalFix({ ladder }: FailedCall): string {
  if (ladder?.refused === 'temperature' && ladder.temperatureSet) {
    return `it refuses MODEL_TEMPERATURE=${ladder.temperature}: unset MODEL_TEMPERATURE to let ragtime omit it for models that refuse one`;
  }
  if ((ladder?.refused === 'output_mode' || ladder?.refused === 'unexplained') && ladder.outputSetting !== 'auto') {
    return `it refuses MODEL_OUTPUT_MODE=${ladder.mode} (${OUTPUT_MODE_SENDS[ladder.mode]}): unset MODEL_OUTPUT_MODE to let ragtime find a rung it accepts`;
  }
  if (ladder?.refused === 'output_mode' || (ladder?.refused === 'unexplained' && ladder.mode === 'prompt')) {
    return 'it refused every structured-output rung down to a plain prompt: check the model and OPENAI_BASE_URL (`ragtime doctor` probes it)';
  }
  return `the request was sent as ${ladder ? OUTPUT_MODE_SENDS[ladder.mode] : 'a structured-output request'}; check the model and OPENAI_BASE_URL (\`ragtime doctor\` probes it)`;
}

function transient(message: string, nextRetryDelayMs?: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'SERVICE_UNAVAILABLE',
    message,
    nonRetryable: false,
    ...(nextRetryDelayMs === undefined ? {} : { nextRetryDelay: nextRetryDelayMs }),
  });
}

/** The causes' messages (fetch failed → connect ECONNREFUSED …), which say why the endpoint is unreachable. */
function causeText(error: Error): string {
  const messages: string[] = [];
  for (let cause = error.cause; cause instanceof Error && messages.length < 3; cause = cause.cause) {
    if (cause.message !== '' && cause.message !== '{}') messages.push(cause.message);
  }
  return messages.length > 0 ? ` (${messages.join(': ')})` : '';
}

/** `retry-after-ms`, then `retry-after` in seconds or as an HTTP date (RFC 9110 §10.2.3); capped. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const millis = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  const raw = headers?.get('retry-after') ?? '';
  const seconds = Number.parseFloat(raw);
  const date = Date.parse(raw);
  const delay = Number.isFinite(millis) ? millis : Number.isFinite(seconds) ? seconds * 1000 : Number.isFinite(date) ? date - now : NaN;
  if (!Number.isFinite(delay) || delay <= 0) return undefined;
  return Math.min(Math.round(delay), MAX_RETRY_AFTER_MS);
}
