import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { AesGcmCodec } from '../../client/codec/aes-gcm-codec';
import { assertWorkerPolling } from '../../client/worker-check';
import { hashToken } from '../../server/http/token-auth';
import { RagClient } from '../../client/rag-client';
import { RagOutcome } from '../../core/schemas/run-io';
import { RAG_SESSION_ID } from '../../workflows/search-attributes';
import { createCodecHandler } from '../../server/codec/codec-handler';
import { TEST_KEYRING } from '../support/codec-keys';
import { TOKENS, bearer, clarifyQuestion, openHttpHarness, simpleQuestion, type HttpHarness, type Tenant } from '../support/http-harness';
import { services } from '../support/services';
import { newTaskQueue, sessionId } from '../workflows/harness';

/*
 * Security of the HTTP API (issue 6 §2, §5) on the real dev server: authentication, tenancy (404, never 403, for
 * anything of another tenant), validation of every input, body limits, hostile ids, and failures that name the
 * service. Bodies are compared whole where a difference would leak whether something exists.
 */

let harness: HttpHarness;
let app: FastifyInstance;
let address: Promise<string> | undefined;
/** The server's URL on a real socket (127.0.0.1, a free port), listening from the first call on. */
const listening = () => (address ??= app.listen({ host: '127.0.0.1', port: 0 }));

beforeAll(async () => {
  harness = await openHttpHarness();
  app = harness.server();
  await app.ready();
}, 120_000);
afterAll(async () => harness?.close());

type Call = { method: 'GET' | 'POST' | 'PUT'; url: string; payload?: unknown; tenant?: Tenant | null; headers?: Record<string, string> };
async function call({ method, url, payload, tenant = 'acme', headers = {} }: Call) {
  const response = await app.inject({
    method,
    url,
    headers: { ...(tenant === null ? {} : bearer(tenant)), ...headers },
    ...(payload === undefined ? {} : { payload: payload as string }),
  });
  return { status: response.statusCode, body: JSON.parse(response.body || 'null') as { error: string; message: string }, headers: response.headers };
}
const ask = async (question: string, session: string, tenant: Tenant = 'acme') =>
  RagOutcome.parse(JSON.parse((await app.inject({ method: 'POST', url: '/api/runs', headers: bearer(tenant), payload: { question, sessionId: session } })).body));

const PROTECTED: Call[] = [
  { method: 'POST', url: '/api/runs', payload: { question: simpleQuestion('丹瑾') } },
  { method: 'GET', url: '/api/runs/rag-s-1-12345678' },
  { method: 'POST', url: '/api/runs/rag-s-1-12345678/answer', payload: { answer: '丹瑾' } },
  { method: 'GET', url: '/api/runs/rag-s-1-12345678/progress' },
  { method: 'GET', url: '/api/diagnosis/s-1/trace' },
];

describe('authentication', () => {
  test.each(PROTECTED)('$method $url without a token → 401 with WWW-Authenticate: Bearer', async (request) => {
    const response = await call({ ...request, tenant: null });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="ragtime"');
    expect(response.body).toEqual({ error: 'UNAUTHORIZED', message: 'missing bearer token; send Authorization: Bearer <token>' });
  });

  test.each([
    ['an unknown token', 'Bearer not-a-token'],
    ['a valid token with a character more', `Bearer ${TOKENS.acme}x`],
    ['a prefix of a valid token', `Bearer ${TOKENS.acme.slice(0, -1)}`],
    ['the configured hash itself', `Bearer ${hashToken(TOKENS.acme)}`],
    ['a valid token in another case', `Bearer ${TOKENS.acme.toUpperCase()}`],
  ])('%s → 401 invalid_token', async (_what, authorization) => {
    const response = await call({ method: 'GET', url: '/api/diagnosis/s-1/trace', tenant: null, headers: { authorization } });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="ragtime", error="invalid_token"');
    expect(response.body.error).toBe('UNAUTHORIZED');
  });

  test.each([['Basic auth', `Basic ${Buffer.from(`acme:${TOKENS.acme}`).toString('base64')}`], ['a token without its scheme', TOKENS.acme], ['an empty bearer', 'Bearer ']])(
    '%s → 401 missing bearer token',
    async (_what, authorization) => {
      const response = await call({ method: 'GET', url: '/api/diagnosis/s-1/trace', tenant: null, headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.body.message).toMatch(/^missing bearer token/);
    },
  );

  test('authentication comes before the body: no token and a malformed body → 401, not 400', async () => {
    const response = await call({ method: 'POST', url: '/api/runs', tenant: null, payload: '{"question":', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(401);
  });

  test('an unknown route is 401 without a token (routes are not probed anonymously), 404 with one', async () => {
    expect((await call({ method: 'GET', url: '/admin', tenant: null })).status).toBe(401);
    expect(await call({ method: 'GET', url: '/admin' })).toMatchObject({ status: 404, body: { error: 'NOT_FOUND', message: 'no route GET /admin' } });
  });

  test('CORS only for the configured origins; a preflight needs no token and returns no data', async () => {
    const browserApp = harness.server({ corsOrigins: ['https://app.example.com'] });
    const preflight = (origin: string) =>
      browserApp.inject({
        method: 'OPTIONS',
        url: '/api/runs',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(allowed.body).toBe('');
    expect((await preflight('https://evil.example.com')).headers['access-control-allow-origin']).toBeUndefined();
    const unauthenticated = await browserApp.inject({ method: 'GET', url: '/api/diagnosis/s-1/trace', headers: { origin: 'https://app.example.com' } });
    expect(unauthenticated.statusCode).toBe(401);
    // Without configured origins there is no CORS at all.
    expect((await app.inject({ method: 'OPTIONS', url: '/api/runs', headers: { origin: 'https://app.example.com' } })).headers['access-control-allow-origin']).toBeUndefined();
  });

  test('/healthz and /openapi.json need no token', async () => {
    expect((await call({ method: 'GET', url: '/healthz', tenant: null })).status).toBe(200);
    expect((await call({ method: 'GET', url: '/openapi.json', tenant: null })).status).toBe(200);
  });
});

describe('tenancy: another tenant gets 404, exactly as for an unknown id', () => {
  let session: string;
  let done: RagOutcome;
  let waiting: RagOutcome;
  beforeAll(async () => {
    session = sessionId();
    done = await ask(simpleQuestion('丹瑾'), session);
    waiting = await ask(clarifyQuestion('租户'), session);
    expect([done.status, waiting.status]).toEqual(['completed', 'awaiting_input']);
  });

  /** The 404 body of an id, with the id replaced, so that two of them compare equal when only the id differs. */
  const shape = (body: { error: string; message: string }, id: string) => ({ ...body, message: body.message.replace(JSON.stringify(id), '<id>') });

  test("another tenant's run: GET, progress and answer are 404, with the body of an unknown run", async () => {
    const unknownId = `rag-${session}-ffffffff`;
    for (const suffix of ['', '/progress']) {
      const foreign = await call({ method: 'GET', url: `/api/runs/${done.workflowId}${suffix}`, tenant: 'globex' });
      const unknown = await call({ method: 'GET', url: `/api/runs/${unknownId}${suffix}`, tenant: 'globex' });
      expect(foreign.status).toBe(404);
      expect(shape(foreign.body, done.workflowId)).toEqual(shape(unknown.body, unknownId));
    }
    expect(shape((await call({ method: 'GET', url: `/api/runs/${done.workflowId}`, tenant: 'globex' })).body, done.workflowId)).toEqual({
      error: 'NOT_FOUND',
      message: 'no run <id>; check the workflow id',
    });
  });

  test("an answer to another tenant's waiting run is 404 and changes nothing; its owner still answers it", async () => {
    const foreign = await call({ method: 'POST', url: `/api/runs/${waiting.workflowId}/answer`, tenant: 'globex', payload: { answer: '丹恒' } });
    expect(foreign).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } });
    expect((await harness.rag.getOutcome(waiting.workflowId)).status).toBe('awaiting_input');
    const own = await call({ method: 'POST', url: `/api/runs/${waiting.workflowId}/answer`, payload: { answer: '丹瑾' } });
    expect(own.status).toBe(200);
    expect((own.body as unknown as RagOutcome).rounds[0]).toMatchObject({ answer: '丹瑾', outcome: 'answered' });
  });

  test("another tenant's session: the Trace API is 404 like an unknown session, and asking in it is 404", async () => {
    const foreign = await call({ method: 'GET', url: `/api/diagnosis/${session}/trace`, tenant: 'globex' });
    const unknown = await call({ method: 'GET', url: '/api/diagnosis/s-nobody/trace', tenant: 'globex' });
    expect(foreign.status).toBe(404);
    expect(shape(foreign.body, session)).toEqual(shape(unknown.body, 's-nobody'));
    const hijack = await call({ method: 'POST', url: '/api/runs', tenant: 'globex', payload: { question: simpleQuestion('椿'), sessionId: session } });
    expect(hijack).toMatchObject({ status: 404, body: { error: 'NOT_FOUND', message: `no session "${session}"; check the session id` } });
    expect(await harness.owners.ownerOf(session)).toBe('acme');
    expect((await call({ method: 'GET', url: `/api/diagnosis/${session}/trace` })).status).toBe(200);
  });

  test('the workflow id is not trusted: a run named after your session but started in another is not yours', async () => {
    const theirs = sessionId();
    await ask(simpleQuestion('卡卡罗'), theirs, 'globex');
    const impostor = await harness.rag.ask(simpleQuestion('今汐'), { sessionId: theirs, workflowId: `rag-${session}-${randomUUID().slice(0, 8)}` });
    expect((await call({ method: 'GET', url: `/api/runs/${impostor.workflowId}` })).status).toBe(404);
    expect((await call({ method: 'GET', url: `/api/runs/${impostor.workflowId}`, tenant: 'globex' })).status).toBe(200);
  });

  test('runs started outside the API (no owner) and workflows of other types are 404 for every tenant', async () => {
    const unclaimed = sessionId();
    const cli = await harness.rag.ask(simpleQuestion('长离'), { sessionId: unclaimed });
    for (const tenant of ['acme', 'globex'] as const) {
      expect((await call({ method: 'GET', url: `/api/runs/${cli.workflowId}`, tenant })).status).toBe(404);
      expect((await call({ method: 'GET', url: `/api/diagnosis/${unclaimed}/trace`, tenant })).status).toBe(404);
    }
    // Another workflow type carrying acme's session in its search attribute is still not an API run.
    const other = await harness.env.client.workflow.start('notARagWorkflow', {
      taskQueue: newTaskQueue(),
      workflowId: `rag-${session}-0therwf1`,
      args: [],
      typedSearchAttributes: [{ key: RAG_SESSION_ID, value: session }],
    });
    try {
      expect((await call({ method: 'GET', url: `/api/runs/${other.workflowId}` })).status).toBe(404);
    } finally {
      await other.terminate('test done');
    }
  });
});

describe('validation: every input through zod, one readable line', () => {
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) => call({ method: 'POST', url, payload, headers });

  test('malformed JSON → 400', async () => {
    const response = await post('/api/runs', '{"question": "丹瑾是什么属性？"', { 'content-type': 'application/json' });
    expect(response).toEqual(expect.objectContaining({ status: 400, body: { error: 'INVALID_INPUT', message: 'request body is not valid JSON; send a JSON object' } }));
  });

  test('an empty JSON body → 400; a body that is not JSON → 415', async () => {
    expect((await post('/api/runs', '', { 'content-type': 'application/json' })).body).toEqual({ error: 'INVALID_INPUT', message: 'request body is empty; send a JSON object' });
    const form = await post('/api/runs', 'question=hi', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form).toMatchObject({ status: 415, body: { error: 'UNSUPPORTED_MEDIA_TYPE' } });
    // fastify parses text/plain by default; docs/API.md promises 415 for it too (issue 14 §8), not a 400 about types.
    for (const [payload, contentType] of [['{"question":"丹瑾是什么属性？"}', 'text/plain'], ['hi', 'text/plain; charset=utf-8']] as const) {
      expect(await post('/api/runs', payload, { 'content-type': contentType })).toEqual(expect.objectContaining({
        status: 415,
        body: { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'request body must be JSON; send it with Content-Type: application/json' },
      }));
    }
  });

  test('a prototype-poisoning body → 400', async () => {
    const response = await post('/api/runs', '{"question":"x","__proto__":{"admin":true}}', { 'content-type': 'application/json' });
    expect(response.status).toBe(400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  test('bodies over the limit → 413, with and without Content-Length (real HTTP)', async () => {
    const big = JSON.stringify({ question: 'x'.repeat(64 * 1024) });
    expect(await post('/api/runs', big, { 'content-type': 'application/json' })).toMatchObject({
      status: 413,
      body: { error: 'PAYLOAD_TOO_LARGE', message: 'request body is larger than 65536 bytes; send a smaller body' },
    });
    const base = await listening();
    const chunks = [big.slice(0, 40_000), big.slice(40_000)];
    const body = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const response = await fetch(`${base}/api/runs`, {
      method: 'POST',
      headers: { ...bearer('acme'), 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  test('schema violations: the message names the field and the rule, on one line', async () => {
    const cases: Array<[string, unknown]> = [
      ['/api/runs', {}],
      ['/api/runs', { question: '   ' }],
      ['/api/runs', { question: 'x'.repeat(2001) }],
      ['/api/runs', { question: 42 }],
      ['/api/runs', { question: 'q', admin: true }],
      ['/api/runs', { question: 'q', sessionId: '../etc' }],
      ['/api/runs', { question: 'q', hitl: { maxRounds: 99 } }],
      ['/api/runs/rag-s-1-12345678/answer', { answer: '' }],
      // Text no embedder can read (issue 14 §7): a lone surrogate, a NUL byte, only zero-width characters.
      ['/api/runs', { question: 'Aurora \ud800 保修期' }],
      ['/api/runs', { question: 'Aurora\u0000保修期' }],
      ['/api/runs', { question: '\u200b\u200c\u200d\ufeff\u2060' }],
      ['/api/runs/rag-s-1-12345678/answer', { answer: '\u200b' }],
    ];
    const messages: string[] = [];
    for (const [url, payload] of cases) {
      const response = await post(url, payload);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('INVALID_INPUT');
      expect(response.body.message).not.toContain('\n');
      messages.push(response.body.message);
    }
    expect(messages).toMatchInlineSnapshot(`
[
  "invalid body: question: Invalid input: expected string, received undefined",
  "invalid body: question: question is empty after trimming",
  "invalid body: question: Too big: expected string to have <=2000 characters",
  "invalid body: question: Invalid input: expected string, received number",
  "invalid body: Unrecognized key: "admin"",
  "invalid body: sessionId: sessionId may hold letters, digits and _ . : @ - only; sessionId: sessionId must not contain ".."",
  "invalid body: hitl.maxRounds: Too big: expected number to be <=10",
  "invalid body: answer: answer is empty after trimming",
  "invalid body: question: question is not valid Unicode: it holds a lone surrogate",
  "invalid body: question: question holds a control character (such as NUL)",
  "invalid body: question: question has no visible character (only spaces or zero-width characters)",
  "invalid body: answer: answer has no visible character (only spaces or zero-width characters)",
]
`);
  });

  const HOSTILE_IDS = [
    ['path traversal', '..%2F..%2Fetc%2Fpasswd'],
    ['dot-dot inside', 'rag-a..b-12345678'],
    ['a NUL byte', 'rag-x%00-12345678'],
    ['a newline', 'rag-x%0A-12345678'],
    ['a space', 'rag%20x'],
    ['SQL injection', "x'%20OR%20'1'%3D'1"],
    ['a statement', 'x%3BDROP%20TABLE%20session_owner%3B--'],
    ['a bidi override', 'rag-%E2%80%AE-x'],
    ['a 300-character id', 'r'.repeat(300)],
  ] as const;

  test.each(HOSTILE_IDS)('a workflow id with %s → 400 on every run route', async (_what, id) => {
    for (const request of [
      { method: 'GET' as const, url: `/api/runs/${id}` },
      { method: 'GET' as const, url: `/api/runs/${id}/progress` },
      { method: 'POST' as const, url: `/api/runs/${id}/answer`, payload: { answer: '丹瑾' } },
    ]) {
      const response = await call(request);
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/^invalid params: workflowId: workflowId /);
    }
  });

  test.each(HOSTILE_IDS)('a session id with %s → 400 on the Trace API', async (_what, id) => {
    const response = await call({ method: 'GET', url: `/api/diagnosis/${id}/trace` });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^invalid params: sessionId: /);
  });

  test('runId and unknown query parameters are checked too', async () => {
    const injected = await call({ method: 'GET', url: "/api/diagnosis/s-1/trace?runId=1'%20OR%20'1'%3D'1" });
    expect(injected.body).toEqual({ error: 'INVALID_INPUT', message: 'invalid querystring: runId: runId is not a Temporal run id (a UUID such as 0195…-…)' });
    expect((await call({ method: 'GET', url: '/api/diagnosis/s-1/trace?debug=1' })).status).toBe(400);
  });

  /** A request sent as written: fastify's inject (and fetch) would resolve dot segments before sending. */
  async function raw(pathAsIs: string, tenant: Tenant | null = 'acme'): Promise<{ status: number; body: { error?: string; message?: string; status?: string } }> {
    const base = new URL(await listening());
    return new Promise((resolve, reject) => {
      const request = httpRequest({ host: base.hostname, port: base.port, path: pathAsIs, headers: tenant === null ? {} : bearer(tenant) }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text || 'null') }));
      });
      request.on('error', reject);
      request.end();
    });
  }

  test('encoded dot-dot ids are refused (raw HTTP, as `curl --path-as-is` sends them)', async () => {
    for (const path of ['/api/runs/%2e%2e', '/api/runs/%2E%2E/progress', '/api/runs/..']) {
      expect(await raw(path)).toMatchObject({ status: 400, body: { message: 'invalid params: workflowId: workflowId must not contain ".."' } });
    }
    expect(await raw('/api/diagnosis/%2e%2e/trace')).toMatchObject({ status: 400, body: { message: 'invalid params: sessionId: sessionId must not contain ".."' } });
  });

  test('dot-dot path segments never reach another route (raw HTTP)', async () => {
    for (const path of ['/api/runs/../../healthz', '/api/runs/x/../../../openapi.json', '/api/diagnosis/../runs/trace']) {
      expect(await raw(path)).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } });
      expect((await raw(path, null)).status).toBe(401);
    }
  });

  test('SQL-looking ids inside the charset are just data: the run, its owner and its trace work', async () => {
    const session = `1:--DROP-TABLE-session_owner-${randomUUID().slice(0, 4)}`;
    const outcome = await ask(simpleQuestion('丹瑾'), session);
    expect(outcome).toMatchObject({ status: 'completed', sessionId: session });
    expect(await harness.owners.ownerOf(session)).toBe('acme');
    expect((await call({ method: 'GET', url: `/api/diagnosis/${encodeURIComponent(session)}/trace` })).status).toBe(200);
    expect((await call({ method: 'GET', url: `/api/runs/${outcome.workflowId}` })).status).toBe(200);
  });
});

/** A response read off a raw socket: status, lower-cased headers, and the body parsed as JSON (null when empty). */
type RawAnswer = { status: number; headers: Record<string, string>; body: unknown; text: string };

function parseAnswer(received: Buffer): RawAnswer {
  const text = received.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end === -1 ? text.length : end).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const rest = end === -1 ? '' : text.slice(end + 4);
  let body: unknown = null;
  try {
    body = rest === '' ? null : JSON.parse(rest);
  } catch {
    body = rest;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body, text };
}

/**
 * Sends bytes exactly as written (fetch and inject would fix a bad URL, a missing Host or a wrong Content-Length
 * before sending), optionally half-closes, and reads the first response: until its Content-Length, or the close.
 */
async function exchange(parts: string[], { halfClose = false } = {}): Promise<RawAnswer> {
  const base = new URL(await listening());
  return new Promise((resolve, reject) => {
    const socket = connect(Number(base.port), base.hostname);
    let received = Buffer.alloc(0);
    const finish = () => {
      socket.destroy();
      resolve(parseAnswer(received));
    };
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
      if (halfClose) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(received.subarray(0, end === -1 ? received.length : end).toString('latin1'));
      if (end !== -1 && length && received.length - end - 4 >= Number(length[1])) finish();
    });
    socket.on('close', finish);
    // The server may close while a long request is still being written: what it answered before counts.
    socket.on('error', (error) => (received.length > 0 ? finish() : reject(error)));
  });
}

const AUTH = `Authorization: Bearer ${TOKENS.acme}\r\n`;
const get = (target: string, headers = AUTH) => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`;
const postRaw = (headers: string, body = '') => `POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${AUTH}${headers}\r\n${body}`;

/** The API's shape: that status, JSON, exactly `{error, message}` with that code; returns the message. */
function expectApiError(answer: RawAnswer, status: number, error: string): string {
  expect({ status: answer.status, error: (answer.body as { error?: unknown } | null)?.error }).toEqual({ status, error });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(answer.body as object).sort()).toEqual(['error', 'message']);
  const { message } = answer.body as { message: unknown };
  expect(typeof message).toBe('string');
  return message as string;
}

describe('every HTTP error in the API shape, whichever layer answers it (issue 14 §8, raw sockets)', () => {
  const LONG_ID = 'a'.repeat(4096);

  test('a path parameter over 1024 characters → 414 URI_TOO_LONG, without echoing the path', async () => {
    // fastify's router answered {"error":"Bad Request","code":"FST_ERR_MAX_PARAM_LENGTH","message":"'/api/runs/aaaa…'…"}.
    const answer = await exchange([get(`/api/runs/${LONG_ID}`)]);
    expect(expectApiError(answer, 414, 'URI_TOO_LONG')).toMatchInlineSnapshot(`"a path segment is longer than 1024 characters; ids in paths are at most 255 characters"`);
    expect(answer.text).not.toContain('a'.repeat(200));
    // Without a token it is 401 like any route: a long path does not tell anonymous callers which routes exist.
    expectApiError(await exchange([get(`/api/runs/${LONG_ID}`, '')]), 401, 'UNAUTHORIZED');
  });

  test('a request line over 16 KiB → 414 URI_TOO_LONG from Node\'s parser, in the API shape', async () => {
    // Node's parser refuses it before fastify sees a request; fastify's default answered 431 in its own shape.
    const answer = await exchange([get(`/api/runs/${'a'.repeat(20_000)}`)]);
    expect(expectApiError(answer, 414, 'URI_TOO_LONG')).toMatchInlineSnapshot(`"the request line is longer than 16384 bytes; send a shorter URL"`);
    expect(answer.headers.connection).toBe('close');
    expect(answer.text).not.toContain('a'.repeat(200));
  });

  test('headers over 16 KiB → 431 HEADERS_TOO_LARGE', async () => {
    const answer = await exchange([get('/healthz', `X-Padding: ${'p'.repeat(20_000)}\r\n`)]);
    expect(expectApiError(answer, 431, 'HEADERS_TOO_LARGE')).toMatchInlineSnapshot(`"the request line and headers are larger than 16384 bytes together; send fewer or smaller headers"`);
    expect(answer.text).not.toContain('p'.repeat(200));
  });

  test('an unknown route with a 4 KiB path → 404, the path cut short in the message', async () => {
    const message = expectApiError(await exchange([get(`/${LONG_ID}`)]), 404, 'NOT_FOUND');
    expect(message).toBe(`no route GET /${'a'.repeat(99)}… (4097 characters)`);
  });

  test.each([
    ['a cut-off escape', '/api/runs/%E0%A4%A'],
    ['an escape that is not UTF-8', '/api/diagnosis/%C0%AF/trace'],
    ['a stray percent sign on no route', '/%zz'],
  ])('a URL with %s → 400 INVALID_INPUT, the path not echoed', async (_what, target) => {
    // fastify's router answered {"error":"Bad Request","code":"FST_ERR_BAD_URL","message":"'<path>' is not a valid url component"}.
    const answer = await exchange([get(target)]);
    expect(expectApiError(answer, 400, 'INVALID_INPUT')).toMatchInlineSnapshot(`"the URL path is not valid percent-encoding (a cut-off or non-UTF-8 escape such as %E0%A4%A); encode each segment with encodeURIComponent"`);
    expectApiError(await exchange([get(target, '')]), 401, 'UNAUTHORIZED');
  });

  test('a body shorter than its Content-Length, then a half-close → 400 INVALID_INPUT', async () => {
    // Node's parser fails at the early end; fastify's default answered {"error":"Bad Request","message":"Client Error"}.
    const answer = await exchange([postRaw('Content-Type: application/json\r\nContent-Length: 100\r\n', '{"question":"hi"}')], { halfClose: true });
    expect(expectApiError(answer, 400, 'INVALID_INPUT')).toMatchInlineSnapshot(`"the connection was closed before the request was complete (unfinished headers, or a body shorter than its Content-Length)"`);
  });

  test('broken framing (an unknown method, a bad Content-Length, Content-Length with chunked) → 400 INVALID_INPUT', async () => {
    const messages = [];
    for (const request of [
      `BREW /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${AUTH}\r\n`,
      postRaw('Content-Type: application/json\r\nContent-Length: 12abc\r\n'),
      postRaw('Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n'),
    ]) {
      messages.push(expectApiError(await exchange([request]), 400, 'INVALID_INPUT'));
    }
    expect(messages).toMatchInlineSnapshot(`
[
  "malformed HTTP request (Invalid method encountered); send a well-formed HTTP/1.1 request",
  "Content-Length is not a valid length; send the size of the body in bytes",
  "malformed HTTP request (Transfer-Encoding can't be present with Content-Length); send a well-formed HTTP/1.1 request",
]
`);
  });

  test('an HTTP/1.1 request without Host → 400 INVALID_INPUT (Node answered a bodiless 400); HTTP/1.0 needs none', async () => {
    const answer = await exchange([`GET /healthz HTTP/1.1\r\n${AUTH}\r\n`]);
    expect(expectApiError(answer, 400, 'INVALID_INPUT')).toBe('the request has no Host header; HTTP/1.1 requires one');
    expect(answer.headers.connection).toBe('close');
    expect((await exchange(['GET /healthz HTTP/1.0\r\n\r\n'])).status).toBe(200);
  });

  test('invalid, empty and oversized JSON bodies and text/plain over a real socket: 400, 400, 413, 415', async () => {
    const close = 'Connection: close\r\n';
    expectApiError(await exchange([postRaw(`Content-Type: application/json\r\nContent-Length: 5\r\n${close}`, '{"a":')]), 400, 'INVALID_INPUT');
    expectApiError(await exchange([postRaw(`Content-Type: application/json\r\nContent-Length: 0\r\n${close}`)]), 400, 'INVALID_INPUT');
    expectApiError(await exchange([postRaw(`Content-Type: application/json\r\nContent-Length: 100000\r\n${close}`)]), 413, 'PAYLOAD_TOO_LARGE');
    expectApiError(await exchange([postRaw(`Content-Type: text/plain\r\nContent-Length: 2\r\n${close}`, 'hi')]), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a known path with another method → 405 with Allow; unknown paths stay 404, and anonymous callers get 401', async () => {
    const put = await call({ method: 'PUT', url: '/api/runs' });
    // GET /api/runs lists runs (issue 16), so the path takes GET (and HEAD) as well as POST.
    expect(put).toMatchObject({ status: 405, body: { error: 'METHOD_NOT_ALLOWED', message: 'PUT is not allowed on /api/runs; use GET or HEAD or POST' } });
    expect(put.headers.allow).toBe('GET, HEAD, POST');
    const getDocument = await call({ method: 'GET', url: '/api/kbs/kb/documents/a.pdf' });
    expect(getDocument).toMatchObject({ status: 405, body: { error: 'METHOD_NOT_ALLOWED', message: 'GET is not allowed on /api/kbs/kb/documents/a.pdf; use DELETE' } });
    expect((await call({ method: 'POST', url: '/api/runs/rag-s-1-12345678', payload: {} })).headers.allow).toBe('GET, HEAD');
    expect((await call({ method: 'PUT', url: '/api/runs', tenant: null })).status).toBe(401);
    // A preflight passes no bearer check, so it must not tell which paths exist.
    expect((await app.inject({ method: 'OPTIONS', url: '/api/runs' })).statusCode).toBe(404);
  });

  test("a codec body over the codec's limit → 413 naming that limit, not the API's", async () => {
    const codecHandler = createCodecHandler(new AesGcmCodec(TEST_KEYRING), { allowedOrigins: [], authorize: () => true });
    const codecApp = harness.server({ codecHandler, limits: { bodyLimitBytes: 64 * 1024, codecBodyLimitBytes: 2048 } });
    const response = await codecApp.inject({ method: 'POST', url: '/codec/decode', headers: bearer('acme'), payload: { payloads: [{ data: 'x'.repeat(4096) }] } });
    expect({ status: response.statusCode, body: JSON.parse(response.body) as unknown }).toEqual({
      status: 413,
      body: { error: 'PAYLOAD_TOO_LARGE', message: 'request body is larger than 2048 bytes; send a smaller body' },
    });
  });
});

describe('errors name what failed', () => {
  test('unknown ids → 404', async () => {
    const id = `rag-nobody-${randomUUID().slice(0, 8)}`;
    for (const request of [
      { method: 'GET' as const, url: `/api/runs/${id}` },
      { method: 'GET' as const, url: `/api/runs/${id}/progress` },
      { method: 'POST' as const, url: `/api/runs/${id}/answer`, payload: { answer: '丹瑾' } },
      { method: 'GET' as const, url: '/api/diagnosis/nobody/trace' },
    ]) {
      expect(await call(request)).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } });
    }
  });

  test('Temporal unreachable → 503 naming Temporal', async () => {
    // No gRPC retry interceptor: the SDK's default retries an unreachable server for about 20 s before the same 503.
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1s', interceptors: [] });
    const down = harness.server({ rag: RagClient.fromClient(new Client({ connection })) });
    try {
      const response = await down.inject({ method: 'GET', url: '/api/runs/rag-s-1-12345678', headers: bearer('acme') });
      expect(response.statusCode).toBe(503);
      expect(JSON.parse(response.body)).toMatchObject({ error: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/^Temporal call for "rag-s-1-12345678" failed: /) });
    } finally {
      await down.close();
      await connection.close().catch(() => undefined);
    }
  });

  test('no worker on the task queue → 503 naming the fix, before anything starts', async () => {
    const taskQueue = newTaskQueue();
    const rag = RagClient.fromClient(harness.env.client, taskQueue);
    const idle = harness.server({ rag, workerCheck: () => assertWorkerPolling(rag, { namespace: 'default', taskQueue, address: services.temporalAddress }) });
    const response = await idle.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question: simpleQuestion('丹瑾') } });
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body).message).toMatch(new RegExp(`^no ragtime worker polls task queue "${taskQueue}"`));
  });

  test('audit store unreachable → 503 naming the store', async () => {
    const session = sessionId();
    await ask(simpleQuestion('丹瑾'), session);
    const auditStore = createAuditStore({ databaseUrl: 'postgres://postgres:secret@127.0.0.1:1/none', sqliteFile: '', includeContent: false });
    const broken = harness.server({ auditStore });
    try {
      const response = await broken.inject({ method: 'GET', url: `/api/diagnosis/${session}/trace`, headers: bearer('acme') });
      expect(response.statusCode).toBe(503);
      const body = JSON.parse(response.body) as { error: string; message: string };
      expect(body.message).toMatch(/^audit store /);
      expect(body.message).not.toContain('secret');
    } finally {
      await auditStore.close();
    }
  });

  test('an unexpected error → 500 that reveals nothing', async () => {
    const session = sessionId();
    await ask(simpleQuestion('丹瑾'), session);
    const leaky = harness.server({
      auditStore: { ...harness.audit, sessionTrace: async () => { throw new Error('password=hunter2 at /srv/secret'); } },
    });
    const response = await leaky.inject({ method: 'GET', url: `/api/diagnosis/${session}/trace`, headers: bearer('acme') });
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ error: 'INTERNAL', message: 'internal error; the server log has the details' });
  });
});
