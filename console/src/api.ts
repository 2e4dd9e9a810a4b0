import type { z } from 'zod';
import type { RagOutcome } from '../../core/schemas/run-io';
import type { AnswerStreamMessage, StreamSource } from '../../core/schemas/answer-stream';
import type { RunDetail } from '../../core/schemas/run-detail';
import type { TenantSyncSources } from '../../core/schemas/sync-source';
import type { ApiError, KbList, RagStep as RagStepSchema, RunCancellation, RunStarted, SessionTrace, SessionTurns } from '../../server/http/api-schemas';

/*
 * Every data call of the console: the HTTP API of docs/API.md with the signed-in bearer token. Types come from the
 * server's zod schemas (type imports only: nothing of the server is bundled).
 */

export type { AnswerStreamMessage, RagOutcome, RunDetail, StreamSource };
export type RagStep = z.infer<typeof RagStepSchema>;
export type SessionTraceView = z.infer<typeof SessionTrace>;
export type KbListView = z.infer<typeof KbList>;
export type RunStartedView = z.infer<typeof RunStarted>;
export type RunCancellationView = z.infer<typeof RunCancellation>;
export type SessionTurnsView = z.infer<typeof SessionTurns>;
export type SessionTurn = SessionTurnsView['turns'][number];

/** An answer of the API that is not 2xx: its closed code and readable message, as the server sent them. */
export class ApiCallError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export type Api = ReturnType<typeof createApi>;

/** The API for one token. `onUnauthorized` runs on a 401 (the token was revoked or is wrong): sign in again. */
export function createApi(token: string, onUnauthorized: () => void = () => undefined) {
  const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? null : JSON.stringify(body),
      signal: signal ?? null,
    });
    if (response.ok) return (await response.json()) as T;
    const failure = (await response.json().catch(() => ({ error: 'HTTP_' + response.status, message: response.statusText }))) as z.infer<typeof ApiError>;
    if (response.status === 401) onUnauthorized();
    throw new ApiCallError(response.status, failure.error, failure.message);
  }

  const id = encodeURIComponent;
  return {
    token,
    headers,
    kbs: (signal?: AbortSignal) => call<KbListView>('GET', '/api/kbs', undefined, signal),
    runs: <T>(query: URLSearchParams, signal?: AbortSignal) => call<T>('GET', `/api/runs?${query.toString()}`, undefined, signal),
    run: (workflowId: string, signal?: AbortSignal) => call<{ outcome: RagOutcome }>('GET', `/api/runs/${id(workflowId)}`, undefined, signal),
    detail: (workflowId: string, signal?: AbortSignal) => call<RunDetail>('GET', `/api/runs/${id(workflowId)}/detail`, undefined, signal),
    compare: <T>(a: string, b: string, signal?: AbortSignal) => call<T>('GET', `/api/runs/compare?a=${id(a)}&b=${id(b)}`, undefined, signal),
    sessionTrace: (sessionId: string, signal?: AbortSignal) => call<SessionTraceView>('GET', `/api/diagnosis/${id(sessionId)}/trace`, undefined, signal),
    sessionTurns: (sessionId: string, signal?: AbortSignal) => call<SessionTurnsView>('GET', `/api/sessions/${id(sessionId)}/turns`, undefined, signal),
    ask: (question: string, where: { kb?: string; sessionId?: string; filters?: Record<string, string[]> } = {}) =>
      call<RunStartedView>('POST', '/api/runs', {
        question,
        wait: false,
        ...(where.kb ? { kb: where.kb } : {}),
        ...(where.sessionId ? { sessionId: where.sessionId } : {}),
        ...(where.filters ? { filters: where.filters } : {}),
      }),
    answer: (workflowId: string, answer: string) => call<RagOutcome>('POST', `/api/runs/${id(workflowId)}/answer`, { answer }),
    cancel: (workflowId: string) => call<RunCancellationView>('POST', `/api/runs/${id(workflowId)}/cancel`),
    /** The synced sources of the tenant's knowledge bases (issue 46), and a pass of one now. */
    sources: (signal?: AbortSignal) => call<TenantSyncSources>('GET', '/api/sources', undefined, signal),
    runSource: (source: string) => call<{ source: string; started: true }>('POST', `/api/sources/${id(source)}/run`),
  };
}
