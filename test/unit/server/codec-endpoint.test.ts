import { createHash } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { AesGcmCodec } from '../../../client/codec/aes-gcm-codec';
import { createCodecHandler } from '../../../server/codec/codec-handler';
import { startCodecServer, type RunningCodecServer } from '../../../server/codec/codec-server';
import { toJsonPayload } from '../../../server/codec/payload-json';
import { TEST_CODEC_KEY_1, TEST_CODEC_KEY_2, testKeyring } from '../../support/codec-keys';

/*
 * The codec endpoint over real HTTP on loopback, called the way the Temporal UI calls it (POST <endpoint>/decode,
 * Content-Type: application/json and X-Namespace, a CORS preflight first) and the way the CLI does (a bearer token).
 */

const TOKEN = 'ui-token-7f3a';
const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const UI = 'http://127.0.0.1:8233';
const codec = new AesGcmCodec(testKeyring(TEST_CODEC_KEY_1));
const jsonOf = (value: unknown) => toJsonPayload(defaultPayloadConverter.toPayload(value) as Payload);

let server: RunningCodecServer;
beforeAll(async () => {
  const handler = createCodecHandler(codec, { allowedOrigins: [UI], tokenDigests: [digest('other-token'), digest(TOKEN)] });
  server = await startCodecServer({ handler, host: '127.0.0.1', port: 0, bodyLimit: 64 * 1024 });
});
afterAll(() => server.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const sealed = async (value: unknown) => ({ payloads: (await codec.encode([defaultPayloadConverter.toPayload(value) as Payload])).map(toJsonPayload) });

describe('POST /decode', () => {
  test('with the bearer token: the payloads come back decrypted, in proto3 JSON', async () => {
    const response = await post('/decode', await sealed({ question: '丹瑾是什么属性？' }), { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ payloads: [jsonOf({ question: '丹瑾是什么属性？' })] });
  });

  test('with the token in the path, as the UI calls --ui-codec-endpoint http://…/<token>', async () => {
    const response = await post(`/${TOKEN}/decode`, await sealed('from the UI'), { origin: UI });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(UI);
    expect(((await response.json()) as { payloads: unknown[] }).payloads).toEqual([jsonOf('from the UI')]);
  });

  test('without a token, or with a wrong one: 401, and nothing is decrypted', async () => {
    const body = await sealed('secret');
    for (const [path, headers] of [
      ['/decode', {}],
      ['/decode', { authorization: 'Bearer wrong' }],
      ['/wrong/decode', {}],
      ['/decode', { authorization: `Basic ${TOKEN}` }],
    ] as const) {
      const response = await post(path, body, headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      const text = await response.text();
      expect(text).not.toContain('secret');
      expect(JSON.parse(text)).toMatchObject({ error: 'UNAUTHORIZED' });
    }
  });

  test('plain payloads pass through; a payload sealed with an unknown key is a 422 naming the key id', async () => {
    const plain = await post('/decode', { payloads: [jsonOf('plain')] }, { authorization: `Bearer ${TOKEN}` });
    expect(await plain.json()).toEqual({ payloads: [jsonOf('plain')] });
    const other = new AesGcmCodec(testKeyring(TEST_CODEC_KEY_2));
    const foreign = { payloads: (await other.encode([defaultPayloadConverter.toPayload('x') as Payload])).map(toJsonPayload) };
    const response = await post('/decode', foreign, { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: 'CODEC_KEY_UNKNOWN', message: expect.stringContaining('"test-k2"') });
  });
});

test('POST /encode then /decode round-trips (tctl and the CLI use both)', async () => {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const encoded = (await (await post('/codec/encode', { payloads: [jsonOf({ a: 1 })] }, auth)).json()) as { payloads: Array<{ metadata: Record<string, string> }> };
  expect(Buffer.from(encoded.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
  expect(await (await post('/codec/decode', encoded, auth)).json()).toEqual({ payloads: [jsonOf({ a: 1 })] });
});

describe('CORS for the Temporal UI', () => {
  const preflight = (origin: string) =>
    fetch(`${server.url}/${TOKEN}/decode`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
    });

  test('the preflight from the UI origin allows POST with content-type and x-namespace', async () => {
    const response = await preflight(UI);
    expect(response.status).toBe(204);
    expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control')))).toEqual({
      'access-control-allow-origin': UI,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type, x-namespace',
      'access-control-max-age': '600',
    });
  });

  test('another origin is refused, preflight and request alike, even with a valid token', async () => {
    const response = await preflight('http://evil.example');
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const request = await post(`/${TOKEN}/decode`, await sealed('x'), { origin: 'http://evil.example' });
    expect(request.status).toBe(403);
    expect(await request.json()).toMatchObject({ error: 'FORBIDDEN_ORIGIN' });
  });
});

describe('malformed requests', () => {
  const auth = { authorization: `Bearer ${TOKEN}` };
  test.each([
    ['not JSON', '{"payloads": [', 400, 'INVALID_INPUT'],
    ['no payloads array', { items: [] }, 400, 'INVALID_INPUT'],
    ['data that is not base64', { payloads: [{ data: '***' }] }, 400, 'INVALID_INPUT'],
  ])('%s → 400', async (_what, body, status, error) => {
    const response = await post('/decode', body, auth);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ error });
  });

  test('another path → 404, GET → 405, a body over the limit → 413', async () => {
    expect((await post('/decrypt', {}, auth)).status).toBe(404);
    expect((await fetch(`${server.url}/decode`, { headers: auth })).status).toBe(405);
    expect((await post('/decode', JSON.stringify({ payloads: [{ data: 'A'.repeat(70 * 1024) }] }), auth)).status).toBe(413);
  });
});

test('a handler without tokens or an authorize function is refused at creation', () => {
  expect(() => createCodecHandler(codec, { allowedOrigins: [UI] })).toThrow(/give it tokens/);
});
