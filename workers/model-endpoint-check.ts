import { performance } from 'node:perf_hooks';
import { tcpConnect } from './doctor/tcp-connect';
import { reasonOf } from './doctor/failure-text';

/*
 * The worker's start-up check of its model endpoint (issue 33 §5): one TCP connection to OPENAI_BASE_URL's host, no
 * model call (a call would cost, and change no setting), so that a worker whose endpoint is down says so when it
 * starts rather than at the first question. `ragtime doctor` probes each model with a real call.
 */

/** `origin reachable (N ms)`, or `origin UNREACHABLE (why): …` — the text after the start-up line's `endpoint:`. */
export async function modelEndpointStatus(baseUrl: string, timeoutMs = 3_000): Promise<string> {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return `${baseUrl} is not a URL (OPENAI_BASE_URL)`;
  }
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const started = performance.now();
  try {
    await tcpConnect(`${url.hostname}:${port}`, AbortSignal.timeout(timeoutMs));
    return `${url.origin} reachable (${Math.round(performance.now() - started)} ms)`;
  } catch (error) {
    return (
      `${url.origin} UNREACHABLE (${reasonOf(error)}): runs that call a model fail with SERVICE_UNAVAILABLE (exit 4) ` +
      'until it answers; `ragtime doctor` probes each model'
    );
  }
}
