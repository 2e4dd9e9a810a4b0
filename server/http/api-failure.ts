import { isRagError, type RagErrorCode } from '../../core/errors';
import type { ApiError } from './api-schemas';

/** An error the API answers with a status of its own choosing (401, 404 …) rather than one derived from a RagError. */
export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Response headers that belong to this failure (e.g. `WWW-Authenticate` on a 401). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The one "not found" of the API. Unknown ids and other tenants' ids get exactly this answer (never 403), so a
 * response does not reveal that someone else's session or run exists.
 */
export function notFound(what: 'run' | 'session' | 'knowledge base' | 'document', id: string): ApiFailure {
  const hint = { run: 'check the workflow id', session: 'check the session id', 'knowledge base': 'GET /api/kbs lists yours', document: 'GET /api/kbs/{kb}/documents lists them' }[what];
  return new ApiFailure(404, 'NOT_FOUND', `no ${what} ${JSON.stringify(id)}; ${hint}`);
}

/**
 * The code of each client-error status the HTTP layer itself answers (malformed requests, limits, routing), so one
 * status always carries one code whichever layer caught it: fastify's pipeline, its router or Node's HTTP parser.
 */
export const HTTP_ERROR_CODE = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'HEADERS_TOO_LARGE',
} as const;
export type HttpErrorStatus = keyof typeof HTTP_ERROR_CODE;

/** An ApiFailure for one of the statuses above, with that status' code. */
export function httpFailure(status: HttpErrorStatus, message: string, headers: Record<string, string> = {}): ApiFailure {
  return new ApiFailure(status, HTTP_ERROR_CODE[status], message, headers);
}

/** A caller's path in a message, cut short: an answer never echoes kilobytes of what was sent. */
export function shortPath(path: string, max = 100): string {
  return path.length <= max ? path : `${path.slice(0, max)}… (${path.length} characters)`;
}

const RAG_STATUS: Partial<Record<RagErrorCode, number>> = {
  INVALID_INPUT: 400,
  INVALID_RESUME_STATE: 400,
  UNKNOWN_RUN: 404,
  UNKNOWN_KB: 404,
  UNKNOWN_DOCUMENT: 404,
  NOT_AWAITING_INPUT: 409,
  SERVICE_UNAVAILABLE: 503,
};

/** Status and body for an error a handler threw; null for errors the server does not know (→ 500, logged). */
export function describeFailure(error: unknown): { status: number; body: ApiError; headers?: Record<string, string> } | null {
  if (error instanceof ApiFailure) return { status: error.status, body: { error: error.code, message: error.message }, headers: error.headers };
  if (isRagError(error)) {
    // UNKNOWN_RUN becomes the API's NOT_FOUND, so unknown and foreign runs look the same to a caller.
    if (error.code === 'UNKNOWN_RUN' || error.code === 'UNKNOWN_KB' || error.code === 'UNKNOWN_DOCUMENT') {
      return { status: 404, body: { error: 'NOT_FOUND', message: error.message } };
    }
    return { status: RAG_STATUS[error.code] ?? 500, body: { error: error.code, message: error.message } };
  }
  return null;
}
