import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ApiError } from './api-schemas';
import { HTTP_ERROR_CODE, describeFailure, shortPath } from './api-failure';

type Issue = { instancePath: string; message?: string | undefined };

/** `invalid body: question: question is empty after trimming; Unrecognized key: "extra"` — one line, no dump. */
function issuesLine(context: string, issues: readonly Issue[]): string {
  const parts = issues.slice(0, 5).map(({ instancePath, message }) => {
    const path = instancePath.split('/').filter((part) => part !== '').join('.');
    return path === '' ? (message ?? 'invalid') : `${path}: ${message ?? 'invalid'}`;
  });
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
  return `invalid ${context}: ${parts.join('; ')}${more}`;
}

/** What a fastify error of the request pipeline (parsing, limits) means for a caller. */
function describeFastifyError(error: FastifyError, bodyLimitBytes: number): { status: number; body: ApiError } | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: { error: 'PAYLOAD_TOO_LARGE', message: `request body is larger than ${bodyLimitBytes} bytes; send a smaller body` } };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, body: { error: 'INVALID_INPUT', message: 'request body is not valid JSON; send a JSON object' } };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: { error: 'INVALID_INPUT', message: 'request body is empty; send a JSON object' } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'request body must be JSON; send it with Content-Type: application/json' } };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, body: { error: 'INVALID_INPUT', message: 'request body size did not match Content-Length; send exactly Content-Length bytes' } };
    default:
      break;
  }
  // Other client errors of fastify's pipeline (e.g. a prototype-poisoning JSON body): keep the status, one line.
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = (HTTP_ERROR_CODE as Record<number, string | undefined>)[status] ?? 'BAD_REQUEST';
    return { status, body: { error: code, message: error.message } };
  }
  return null;
}

// The methods a 405 may offer. OPTIONS is left out: with CORS on, `OPTIONS *` matches every path. HEAD comes with GET.
const OFFERED_METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'] as const;

/**
 * Every error leaves the server as `{ error, message }`: validation → 400 (one readable line), limits → 413,
 * unknown or foreign ids → 404, a known path with another method → 405, a run that is not waiting → 409, an
 * unreachable service → 503 naming it. Anything unexpected is logged and answered with a 500 that reveals nothing.
 * (What never reaches a route — broken URLs, Node's parser errors — is answered in protocol-errors.ts.)
 */
export function installErrorHandlers(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const context = error.validationContext ?? 'request';
      return reply.code(400).send({ error: 'INVALID_INPUT', message: issuesLine(context, error.validation) } satisfies ApiError);
    }
    // The route's own limit: the codec routes take larger bodies than the API's.
    const known = describeFailure(error) ?? describeFastifyError(error, request.routeOptions.bodyLimit ?? bodyLimitBytes);
    if (known !== null) {
      if (known.status >= 500) request.log.warn({ err: error }, known.body.message);
      if ('headers' in known && known.headers) reply.headers(known.headers);
      return reply.code(known.status).send(known.body);
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.code(500).send({ error: 'INTERNAL', message: 'internal error; the server log has the details' } satisfies ApiError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    // Every request here but a preflight has passed the bearer check, so a 405 tells only a tenant that a path exists.
    const allowed = request.method === 'OPTIONS' ? [] : OFFERED_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      const allow = allowed.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
      return reply
        .code(405)
        .header('allow', allow.join(', '))
        .send({ error: 'METHOD_NOT_ALLOWED', message: `${request.method} is not allowed on ${shortPath(path)}; use ${allow.join(' or ')}` } satisfies ApiError);
    }
    return reply.code(404).send({ error: 'NOT_FOUND', message: `no route ${request.method} ${shortPath(path)}` } satisfies ApiError);
  });
}
