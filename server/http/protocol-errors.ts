import { STATUS_CODES, maxHeaderSize, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiFailure, HTTP_ERROR_CODE, httpFailure, type HttpErrorStatus } from './api-failure';
import type { ApiError } from './api-schemas';
import { authenticate } from './bearer-auth';
import type { TenantDirectory } from './tenant-directory';

/*
 * Requests that never reach a route, answered in the API's `{ error, message }` shape like every other error (issue
 * 14 §8): malformed URLs and over-long path parameters (fastify's router), a missing Host header, and what Node's HTTP
 * parser refuses before fastify sees a request (oversized headers or request line, a body cut short, broken
 * framing). None of them echoes what was sent: fastify's own 414 returned the whole 4 KiB path.
 */

/**
 * fastify's `frameworkErrors` option: its router's answers for a path that is not valid percent-encoded UTF-8
 * (FST_ERR_BAD_URL) and for a path parameter over `maxParamLength` (FST_ERR_MAX_PARAM_LENGTH). No hook runs for
 * these, so the bearer check is made here: without a valid token they are 401, as an unknown route is, and routes
 * cannot be probed anonymously with long or broken paths.
 */
export function routerErrorHandler(tenants: TenantDirectory, maxParamLength: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    let failure: ApiFailure;
    try {
      authenticate(request.headers.authorization, tenants);
      failure = routerFailure(error, maxParamLength);
    } catch (unauthorized) {
      if (!(unauthorized instanceof ApiFailure)) throw unauthorized;
      failure = unauthorized;
    }
    if (failure.status >= 500) request.log.error({ err: error }, 'unexpected router error');
    return reply.code(failure.status).headers(failure.headers).send({ error: failure.code, message: failure.message } satisfies ApiError);
  };
}

function routerFailure(error: FastifyError, maxParamLength: number): ApiFailure {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return httpFailure(400, 'the URL path is not valid percent-encoding (a cut-off or non-UTF-8 escape such as %E0%A4%A); encode each segment with encodeURIComponent');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return httpFailure(414, `a path segment is longer than ${maxParamLength} characters; ids in paths are at most 255 characters`);
    default:
      // FST_ERR_ASYNC_CONSTRAINT: the API has no async route constraints, so this would be a bug of the server.
      return new ApiFailure(500, 'INTERNAL', 'internal error; the server log has the details');
  }
}

/**
 * Node's HTTP server answers an HTTP/1.1 request without Host itself, with a bare 400 and no body, and has no hook
 * for it; so `requireHostHeader` is off (create-http-server.ts) and this onRequest hook, installed before the bearer
 * check, refuses it in the API's shape instead. HTTP/1.0 requests need no Host, as in Node.
 */
export function installHostCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw httpFailure(400, 'the request has no Host header; HTTP/1.1 requires one', { connection: 'close' });
    }
  });
}

/**
 * fastify's `clientErrorHandler` option (Node's `clientError` event): the errors of Node's HTTP parser, for which no
 * request object exists. The answer is written to the socket as a whole HTTP response, then the connection closes,
 * since the parser cannot go on after an error.
 */
export function clientErrorHandler(this: FastifyInstance | undefined, error: ConnectionError, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this?.log.trace({ err: error }, 'client error');
  // As Node's own handler: never write into a response that has begun (a pipelined request after an open event
  // stream), it would corrupt it. `_httpMessage` is the socket's in-flight response, set by Node's HTTP server.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const { status, message } = parserFailure(error);
  const body = JSON.stringify({ error: HTTP_ERROR_CODE[status], message } satisfies ApiError);
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.destroySoon();
}

/** What a parser error means for the caller. Node's error codes are llhttp's (`HPE_*`), plus its request timeout. */
function parserFailure(error: ConnectionError): { status: HttpErrorStatus; message: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request headers did not arrive in time; send them without pausing' };
    case 'HPE_HEADER_OVERFLOW':
      return overflowedInRequestLine(error)
        ? { status: 414, message: `the request line is longer than ${maxHeaderSize} bytes; send a shorter URL` }
        : { status: 431, message: `the request line and headers are larger than ${maxHeaderSize} bytes together; send fewer or smaller headers` };
    case 'HPE_INVALID_EOF_STATE':
      return { status: 400, message: 'the connection was closed before the request was complete (unfinished headers, or a body shorter than its Content-Length)' };
    case 'HPE_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'Content-Length is not a valid length; send the size of the body in bytes' };
    default: {
      // llhttp's reasons are fixed texts ("Invalid method encountered"), never a part of the request.
      const reason = (error as ConnectionError & { reason?: unknown }).reason;
      return { status: 400, message: `malformed HTTP request${typeof reason === 'string' ? ` (${reason})` : ''}; send a well-formed HTTP/1.1 request` };
    }
  }
}

/**
 * Node's parser reports one error, HPE_HEADER_OVERFLOW, whether the URL or the headers took the header section past
 * `maxHeaderSize`. When the packet it failed in begins with the request line and has no line break before the point
 * of failure, the URL is what is too long: 414. Otherwise (a long header, or a request line spread over packets so
 * that it cannot be told) it stays 431, which is a correct answer for such a request too.
 */
function overflowedInRequestLine(error: ConnectionError): boolean {
  // fastify types rawPacket as a JSON-serialized Buffer; at run time it is the Buffer Node's parser failed in.
  const packet: unknown = error.rawPacket;
  if (!Buffer.isBuffer(packet) || typeof error.bytesParsed !== 'number') return false;
  const parsed = packet.subarray(0, error.bytesParsed);
  return /^[A-Z]+ \S/.test(parsed.subarray(0, 32).toString('latin1')) && !parsed.includes(0x0a);
}
