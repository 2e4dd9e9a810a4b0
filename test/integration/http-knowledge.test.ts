/**
 * Knowledge bases over the HTTP API (issue 12, DESIGN §4b): each tenant may use the knowledge bases its tokens list
 * (test/support/http-harness.ts: acme → its own and the default, globex → its own); any other is "not found", as an
 * unknown one — for asking, listing documents and removing one. The document endpoints run on real knowledge stores
 * (Milvus Lite collections of this run, a SQLite registry); runs use the harness' scripted retrieval.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { ingestActivities } from '../../activities/ingest-activities';
import { RagOutcome } from '../../core/schemas/run-io';
import { DocumentList, DocumentRemoved, KbList } from '../../server/http/api-schemas';
import { FakeEmbedder } from '../support/ingest-doubles';
import { KBS, bearer, openHttpHarness, simpleQuestion, type HttpHarness, type Tenant } from '../support/http-harness';
import { newMilvusClient } from '../support/milvus';
import { realKnowledge, type RealKnowledge } from '../support/real-knowledge';
import { assertReachable, services } from '../support/services';

jest.setTimeout(60_000);

let harness: HttpHarness;
let stores: RealKnowledge;
let app: FastifyInstance;
let tmp: string;

const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

beforeAll(async () => {
  await assertReachable('Milvus Lite', services.milvusAddress);
  void newMilvusClient; // imported first for its jest.mock of the SDK's Parquet writer (see test/support/milvus.ts)
  harness = await openHttpHarness();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-http-kb-'));
  stores = realKnowledge({ kb: KBS.default, sqliteFile: path.join(tmp, 'ragtime.sqlite'), embedder: new FakeEmbedder(services.embeddingDim) });
  for (const kb of [KBS.default, KBS.acme, KBS.globex]) await stores.knowledge.create(kb);
  const ingest = ingestActivities({ knowledge: stores.knowledge });
  for (const [kb, id, text] of [
    [KBS.acme, 'manuals/router.md', 'The router has a two-year warranty.'],
    [KBS.globex, 'manuals/router.md', 'Globex routers are sold without warranty.'],
  ] as const) {
    const file = path.join(tmp, `${kb}.md`);
    writeFileSync(file, text);
    await new MockActivityEnvironment(undefined, { logger: silent }).run(ingest.ingestFile, { file, filename: 'router.md', docId: id, kb });
  }
  app = harness.server({ knowledge: stores.knowledge });
}, 120_000);

afterAll(async () => {
  for (const kb of [KBS.default, KBS.acme, KBS.globex]) await stores?.knowledge.drop(kb).catch(() => undefined);
  await stores?.close();
  await harness?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const call = (tenant: Tenant, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
  payload === undefined
    ? app.inject({ method, url, headers: bearer(tenant) })
    : app.inject({ method, url, headers: { ...bearer(tenant), 'content-type': 'application/json' }, payload });

describe('asking in a knowledge base', () => {
  test('a tenant asks in one of its knowledge bases; the outcome names it', async () => {
    const response = await call('acme', 'POST', '/api/runs', { question: simpleQuestion('丹瑾'), kb: KBS.acme });
    expect(response.statusCode).toBe(200);
    expect(RagOutcome.parse(JSON.parse(response.body)).kb).toBe(KBS.acme);
  });

  test('without kb: the default when the tenant may use it, else its own first', async () => {
    const acme = RagOutcome.parse(JSON.parse((await call('acme', 'POST', '/api/runs', { question: simpleQuestion('丹瑾') })).body));
    const globex = RagOutcome.parse(JSON.parse((await call('globex', 'POST', '/api/runs', { question: simpleQuestion('丹瑾') })).body));
    expect([acme.kb, globex.kb]).toEqual([KBS.default, KBS.globex]);
  });

  test("another tenant's knowledge base is not found, exactly as one that does not exist", async () => {
    const foreign = await call('acme', 'POST', '/api/runs', { question: simpleQuestion('丹瑾'), kb: KBS.globex });
    const unknown = await call('acme', 'POST', '/api/runs', { question: simpleQuestion('丹瑾'), kb: 'no_such_kb' });
    expect([foreign.statusCode, unknown.statusCode]).toEqual([404, 404]);
    expect(JSON.parse(foreign.body)).toEqual({ error: 'NOT_FOUND', message: `no knowledge base "${KBS.globex}"; GET /api/kbs lists yours` });
    expect(JSON.parse(unknown.body).message).toBe('no knowledge base "no_such_kb"; GET /api/kbs lists yours');
    expect((await call('acme', 'POST', '/api/runs', { question: simpleQuestion('丹瑾'), kb: 'not-a-name' })).statusCode).toBe(400);
  });
});

describe('documents', () => {
  test('GET /api/kbs lists the caller\'s knowledge bases only, with their stats', async () => {
    const acme = KbList.parse(JSON.parse((await call('acme', 'GET', '/api/kbs')).body));
    const globex = KbList.parse(JSON.parse((await call('globex', 'GET', '/api/kbs')).body));
    expect(acme.kbs.map((kb) => [kb.kb, kb.documents, kb.default])).toEqual([
      [KBS.acme, 1, false],
      [KBS.default, 0, true],
    ]);
    expect(globex.kbs.map((kb) => [kb.kb, kb.documents, kb.default])).toEqual([[KBS.globex, 1, true]]);
  });

  test("a tenant lists its knowledge base's documents; another tenant's is not found", async () => {
    const mine = await call('globex', 'GET', `/api/kbs/${KBS.globex}/documents`);
    expect(mine.statusCode).toBe(200);
    expect(DocumentList.parse(JSON.parse(mine.body)).documents.map((d) => [d.doc_id, d.filename, d.l3])).toEqual([['manuals/router.md', 'router.md', 1]]);
    const foreign = await call('acme', 'GET', `/api/kbs/${KBS.globex}/documents`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain('router');
  });

  test("removing a document: another tenant's is not found and stays; the owner's goes from both stores", async () => {
    const url = `/api/kbs/${KBS.globex}/documents/${encodeURIComponent('manuals/router.md')}`;
    expect((await call('acme', 'DELETE', url)).statusCode).toBe(404);
    expect(await stores.knowledge.leafStoreOf(KBS.globex).countByDocument('manuals/router.md')).toBe(1);
    const removed = await call('globex', 'DELETE', url);
    expect(removed.statusCode).toBe(200);
    expect(DocumentRemoved.parse(JSON.parse(removed.body)).removed).toMatchObject({ kb: KBS.globex, doc_id: 'manuals/router.md' });
    expect(await stores.knowledge.leafStoreOf(KBS.globex).countByDocument('manuals/router.md')).toBe(0);
    // The same id in acme's knowledge base is another document: it stays.
    expect(await stores.knowledge.leafStoreOf(KBS.acme).countByDocument('manuals/router.md')).toBe(1);
    const again = await call('globex', 'DELETE', url);
    expect([again.statusCode, JSON.parse(again.body).error]).toEqual([404, 'NOT_FOUND']);
  });
});
