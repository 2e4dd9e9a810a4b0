import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { KBS, bearer, openHttpHarness, type HttpHarness } from '../support/http-harness';
import { FakeEmbedder } from '../support/ingest-doubles';
import { newMilvusClient } from '../support/milvus';
import { realKnowledge, type RealKnowledge } from '../support/real-knowledge';
import { assertReachable, services } from '../support/services';

/*
 * Fuzz (issue 14, the chaos suite): hundreds of generated requests — bodies of any JSON shape and none, strings with
 * surrogates, control and zero-width characters, hostile ids and query strings, odd methods and content types —
 * against the HTTP API on the real dev server with a worker. None may get a 5xx or a body outside the API's
 * {error, message} shape, and the server is still healthy afterwards. Seeded: a failure replays with the same seed.
 */

const SEED = 20261201;
const RUNS = 300;

let harness: HttpHarness;
let app: FastifyInstance;
let stores: RealKnowledge;
let tmp: string;
beforeAll(async () => {
  await assertReachable('Milvus Lite', services.milvusAddress);
  void newMilvusClient; // imported first for its jest.mock of the SDK's Parquet writer (see test/support/milvus.ts)
  harness = await openHttpHarness();
  tmp = mkdtempSync(nodePath.join(os.tmpdir(), 'ragtime-http-fuzz-'));
  // Real knowledge stores behind the document endpoints, so /api/kbs… is exercised too (not a 503 "not configured").
  stores = realKnowledge({ kb: KBS.acme, sqliteFile: nodePath.join(tmp, 'ragtime.sqlite'), embedder: new FakeEmbedder(services.embeddingDim) });
  await stores.knowledge.create(KBS.acme);
  app = harness.server({ knowledge: stores.knowledge });
  await app.ready();
}, 120_000);
afterAll(async () => {
  await stores?.knowledge.drop(KBS.acme).catch(() => undefined);
  await stores?.close();
  await harness?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Text a person, a bug or an attacker might send: any code unit (lone surrogates too), and the usual suspects. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '\u200b\u200d', '丹瑾是什么属性？', '../../etc/passwd', "' OR 1=1 --", '<script>x</script>', '%00', '9'.repeat(3000)),
);
const json = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.anything({ maxDepth: 2, withNullPrototype: false }).map((value) => value ?? null));
const askBody = fc.record(
  { question: text, sessionId: text, kb: text, wait: fc.constantFrom(false, 'no', 0), hitl: json },
  { requiredKeys: [] },
);
/** A URL can only carry well-formed text: a lone surrogate becomes U+FFFD, as a browser would send it. */
const encode = (id: string) => encodeURIComponent(id.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
const path = fc.oneof(
  fc.constantFrom('/api/runs', '/api/kbs', '/healthz', '/openapi.json'),
  text.map((id) => `/api/runs/${encode(id)}`),
  text.map((id) => `/api/runs/${encode(id)}/answer`),
  text.map((id) => `/api/runs/${encode(id)}/progress`),
  text.map((id) => `/api/runs/${encode(id)}/detail`),
  fc.tuple(text, text).map(([a, b]) => `/api/runs/compare?a=${encode(a)}&b=${encode(b)}`),
  text.map((value) => `/api/runs?status=${encode(value)}&since=${encode(value)}&limit=${encode(value)}`),
  text.map((id) => `/api/diagnosis/${encode(id)}/trace?runId=${encode(id)}`),
  text.map((id) => `/api/kbs/${encode(id)}/documents`),
  text.map((id) => `/api/kbs/${KBS.acme}/documents/${encode(id)}`),
);
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', undefined) },
);
/** An ask a client could mean: any question text, no or a well-formed session, not waiting (the run goes on). */
const plausibleAsk = fc.record({ question: text, sessionId: fc.option(fc.stringMatching(/^[a-z0-9-]{1,20}$/), { nil: undefined }), wait: fc.constant(false) });
const anyBody = fc.oneof(json.map((body) => ({ kind: 'json' as const, body })), text.map((body) => ({ kind: 'raw' as const, body })));
/** Mostly what the routes take, so the requests get past authentication and routing into validation. */
const request = fc.oneof(
  { weight: 3, arbitrary: fc.record({ method: fc.constant('POST'), url: fc.constant('/api/runs'), body: askBody.map((body) => ({ kind: 'json' as const, body })), contentType, authorized: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ method: fc.constant('POST'), url: fc.constant('/api/runs'), body: plausibleAsk.map((body) => ({ kind: 'json' as const, body })), contentType: fc.constant('application/json'), authorized: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ method: fc.constant('POST'), url: text.map((id) => `/api/runs/${encode(id)}/answer`), body: fc.record({ answer: text }, { requiredKeys: [] }).map((body) => ({ kind: 'json' as const, body })), contentType, authorized: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ method: fc.constant('GET'), url: path, body: anyBody, contentType, authorized: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'), url: path, body: anyBody, contentType, authorized: fc.boolean() }) },
);

type GeneratedRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function injectOptions(generated: GeneratedRequest): InjectOptions {
  const headers: Record<string, string> = generated.authorized ? bearer('acme') : {};
  if (generated.contentType) headers['content-type'] = generated.contentType;
  const withBody = generated.method !== 'GET';
  const payload = generated.body.kind === 'raw' ? generated.body.body : JSON.stringify(generated.body.body);
  // Progress streams stay open: a fuzz request asks for a settled stream or none (no run id is real here).
  return { method: generated.method, url: generated.url, headers, ...(withBody ? { payload } : {}) } as InjectOptions;
}

test(`${RUNS} generated requests (seed ${SEED}): no 5xx, every error in the API's shape, the server still healthy`, async () => {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(request, async (generated) => {
      const response = await app.inject(injectOptions(generated));
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      expect(response.statusCode).toBeLessThan(500);
      if (response.statusCode >= 400) {
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(JSON.parse(response.body)).toEqual({ error: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) });
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
  console.log(`fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
  const health = await app.inject({ method: 'GET', url: '/healthz' });
  expect(health.statusCode).toBe(200);
  // Not only refusals: the generator reaches the routes (some asks start runs, some reads find nothing).
  expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
  expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 10);
}, 300_000);
