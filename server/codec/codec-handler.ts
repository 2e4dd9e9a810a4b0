import { createHash, timingSafeEqual } from 'node:crypto';
import type { PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { isRagError } from '../../core/errors';
import { JsonPayloads, fromJsonPayload, toJsonPayload } from './payload-json';

/*
 * The codec endpoint (Temporal's codec server protocol) as one framework-agnostic function: `ragtime codec-server`
 * serves it with node:http (codec-server.ts) and `ragtime serve` mounts it under /codec/. docs/SECURITY.md.
 */

/** What the handler needs of an HTTP request; Node's and fastify's requests provide it as they are. */
export type CodecHttpRequest = {
  method: string;
  /** Path and query, e.g. "/decode", "/codec/decode", "/<token>/decode". Only the last segment picks the action. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (an object), or its raw text; ignored for OPTIONS. */
  body?: unknown;
};

/** Status, headers (CORS included) and a JSON-serializable body (absent for a preflight). */
export type CodecHttpResponse = { status: number; headers: Record<string, string>; body?: unknown };

export type CodecHandler = (request: CodecHttpRequest) => Promise<CodecHttpResponse>;

export type CodecHandlerOptions = {
  /** Browser origins allowed to call the endpoint (CORS): the Temporal UI, e.g. http://127.0.0.1:8233. */
  allowedOrigins: readonly string[];
  /** Hex SHA-256 digests of the accepted bearer tokens (config.codecServer.tokens). */
  tokenDigests?: readonly string[];
  /** Or a check of your own (e.g. the HTTP API's tenant tokens): resolves true to accept the token. */
  authorize?: (token: string) => boolean | Promise<boolean>;
};

const ACTIONS = ['encode', 'decode'] as const;
type Action = (typeof ACTIONS)[number];

const json = (status: number, headers: Record<string, string>, body: unknown): CodecHttpResponse => ({
  status,
  headers: { ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  body,
});
const failure = (status: number, headers: Record<string, string>, error: string, message: string) => json(status, headers, { error, message });

const header = (headers: CodecHttpRequest['headers'], name: string): string | undefined => {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** A path segment, percent-decoded; a malformed escape is kept as is (it will not match a token). */
const segmentText = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Compares against every digest in constant time per digest, so timing tells nothing about which one matched. */
function digestCheck(digests: readonly string[]): (token: string) => boolean {
  const known = digests.map((hex) => Buffer.from(hex, 'hex'));
  return (token) => {
    const presented = sha256(token);
    return known.reduce((found, digest) => timingSafeEqual(digest, presented) || found, false);
  };
}

/**
 * Creates the handler of POST …/encode and …/decode (`{ payloads: [...] }` in proto3 JSON, as the Temporal UI and
 * CLI send them) with CORS for the UI's origin and bearer-token auth:
 * - the token comes from `Authorization: Bearer <token>`, or — for the Temporal UI, which sends no header unless it
 *   signs in with OIDC over https — from the path segment before the action: `--ui-codec-endpoint
 *   http://127.0.0.1:8234/<token>` makes the UI call `/<token>/decode`;
 * - OPTIONS answers CORS preflights for the allowed origins (403 for others); a request from another browser origin
 *   is refused (403); requests without an Origin header (CLI, servers) are not browser requests and pass.
 * Answers 200 `{ payloads }`, 400 (malformed body), 401 (no or wrong token), 403 (origin), 404 (not encode or
 * decode), 405 (method), 422 (a payload this keyring cannot open: CODEC_KEY_UNKNOWN, PAYLOAD_DECRYPT_FAILED).
 *
 * @example
 * const handler = createCodecHandler(new AesGcmCodec(config.codec), {
 *   allowedOrigins: config.codecServer.allowedOrigins,
 *   tokenDigests: config.codecServer.tokens,
 * });
 * const response = await handler({ method: 'POST', url: '/decode', headers: req.headers, body: { payloads } });
 */
export function createCodecHandler(codec: PayloadCodec, options: CodecHandlerOptions): CodecHandler {
  const digests = options.tokenDigests ?? [];
  if (options.authorize === undefined && digests.length === 0) {
    throw new Error('the codec endpoint decrypts for whoever calls it: give it tokens (RAGTIME_CODEC_TOKENS, SHA-256 digests) or an authorize function');
  }
  const authorize = options.authorize ?? digestCheck(digests);
  const origins = new Set(options.allowedOrigins.map((origin) => origin.replace(/\/+$/, '')));

  return async (request) => {
    const origin = header(request.headers, 'origin');
    const allowed = origin !== undefined && origins.has(origin);
    const cors: Record<string, string> = allowed
      ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' }
      : { vary: 'Origin' };
    if (origin !== undefined && !allowed) {
      return failure(403, cors, 'FORBIDDEN_ORIGIN', `origin ${origin} may not call the codec endpoint; allowed: ${[...origins].join(', ')} (RAGTIME_CODEC_CORS_ORIGINS)`);
    }
    const segments = request.url.split(/[?#]/)[0]!.split('/').filter((segment) => segment !== '');
    const action = segments.at(-1) as Action | undefined;
    if (action === undefined || !ACTIONS.includes(action)) return failure(404, cors, 'NOT_FOUND', 'the codec endpoint serves POST …/encode and …/decode');
    if (request.method === 'OPTIONS') {
      return {
        status: 204,
        headers: {
          ...cors,
          'access-control-allow-methods': 'POST, OPTIONS',
          'access-control-allow-headers': 'authorization, content-type, x-namespace',
          'access-control-max-age': '600',
        },
      };
    }
    if (request.method !== 'POST') return failure(405, { ...cors, allow: 'POST, OPTIONS' }, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed; use POST`);

    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(request.headers, 'authorization') ?? '')?.[1];
    const token = bearer ?? (segments.length >= 2 ? segmentText(segments.at(-2)!) : undefined);
    if (token === undefined || !(await authorize(token))) {
      return failure(401, { ...cors, 'www-authenticate': 'Bearer' }, 'UNAUTHORIZED', `a valid codec token is required: Authorization: Bearer <token>, or …/<token>/${action}`);
    }

    let body = request.body;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      try {
        body = JSON.parse(body.toString()) as unknown;
      } catch {
        return failure(400, cors, 'INVALID_INPUT', 'the body is not JSON: expected {"payloads": [{"metadata": {…}, "data": "<base64>"}]}');
      }
    }
    const parsed = JsonPayloads.safeParse(body);
    if (!parsed.success) return failure(400, cors, 'INVALID_INPUT', `the body is not {"payloads": [...]} in proto3 JSON: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}`);

    try {
      const payloads = parsed.data.payloads.map(fromJsonPayload);
      const result = action === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
      return json(200, cors, { payloads: result.map(toJsonPayload) });
    } catch (error) {
      if (isRagError(error)) return failure(422, cors, error.code, error.message);
      throw error;
    }
  };
}
