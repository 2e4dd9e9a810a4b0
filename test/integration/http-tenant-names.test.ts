import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../runtime/load-config';
import { buildAdapters, type Adapters } from '../../workers/build-adapters';
import { KBS, bearer, openHttpHarness, type HttpHarness } from '../support/http-harness';
import { assertServicesReachable, serviceEnvironment } from '../support/worker-process';

/*
 * Issue 35 §3: no response names another tenant's objects. Two tenants on the real services: globex owns a knowledge
 * base that exists in Milvus, a session and a run; acme may use a knowledge base that does not exist. Every /api route
 * of the OpenAPI document is called as acme twice, once naming globex's objects and once naming objects that do not
 * exist: the two answers must be the same once the names sent are masked (foreign and unknown look alike), and no
 * answer names a knowledge base acme did not send. A run acme starts on its missing knowledge base fails without
 * naming the ones that exist (the worker's UNKNOWN_KB listed every one: "the knowledge bases are: …").
 */

let harness: HttpHarness;
let adapters: Adapters;
let app: FastifyInstance;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-tenant-names-'));
const GLOBEX_QUESTION = `globex 的机密问题 ${process.pid}？`;
let globex: { kb: string; session: string; run: string };

beforeAll(async () => {
  await assertServicesReachable();
  // The worker's own stores and retriever, as `ragtime worker` builds them: its UNKNOWN_KB is what reaches tenants.
  adapters = buildAdapters(loadConfig({ ...serviceEnvironment({ collection: KBS.default, dataDir }), MODEL_PROVIDER: 'offline' }));
  await adapters.knowledge.create(KBS.globex);
  await adapters.knowledge.create(KBS.default);
  harness = await openHttpHarness({ retriever: adapters.retriever });
  app = harness.server({ knowledge: adapters.knowledge });
  const session = `globex-secret-${process.pid}`;
  const asked = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('globex'), payload: { question: GLOBEX_QUESTION, sessionId: session } });
  expect(asked.statusCode).toBe(200);
  globex = { kb: KBS.globex, session, run: (JSON.parse(asked.body) as { workflowId: string }).workflowId };
}, 180_000);

afterAll(async () => {
  await harness?.close();
  for (const kb of [KBS.globex, KBS.default]) await adapters?.knowledge.drop(kb).catch(() => undefined);
  await adapters?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

type Operation = { method: string; url: string; payload?: Record<string, unknown> };
type OpenApi = { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; requestBody?: unknown }>> };

/** Every tenant route of the OpenAPI document, its path, query and body naming `ids`' objects. */
function operationsNaming(document: OpenApi, ids: { kb: string; session: string; run: string }): Operation[] {
  const value: Record<string, string> = { kb: ids.kb, sessionId: ids.session, session: ids.session, workflowId: ids.run, a: ids.run, b: ids.run, '*': 'manual.md' };
  const operations: Operation[] = [];
  for (const [route, methods] of Object.entries(document.paths)) {
    if (!route.startsWith('/api/') || route === '/api/doctor') continue;
    for (const [method, spec] of Object.entries(methods)) {
      const url = route.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(value[name] ?? ids.run));
      const query = (spec.parameters ?? []).filter((parameter) => parameter.in === 'query' && value[parameter.name] !== undefined);
      const search = query.map((parameter) => `${parameter.name}=${encodeURIComponent(value[parameter.name] as string)}`).join('&');
      const payload = spec.requestBody ? { question: '这款产品的价格是多少？', sessionId: ids.session, kb: ids.kb, answer: '第一个', wait: true } : undefined;
      operations.push({ method: method.toUpperCase(), url: search ? `${url}?${search}` : url, ...(payload ? { payload } : {}) });
    }
  }
  return operations;
}

const mask = (text: string, ids: { kb: string; session: string; run: string }) =>
  // Longest first: a run id holds its session's.
  [ids.kb, ids.session, ids.run].sort((a, b) => b.length - a.length).reduce((masked, id) => masked.split(id).join('<id>').split(encodeURIComponent(id)).join('<id>'), text);

test("every route answers acme the same for globex's objects as for objects that do not exist, and names no knowledge base acme did not send", async () => {
  const document = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as OpenApi;
  const ghost = { kb: `ghost_kb_${process.pid}`, session: `ghost-session-${process.pid}`, run: `rag-ghost-${process.pid}` };
  const foreignOps = operationsNaming(document, globex);
  const ghostOps = operationsNaming(document, ghost);
  expect(foreignOps.length).toBeGreaterThanOrEqual(12);
  for (const [index, operation] of foreignOps.entries()) {
    const foreign = await app.inject({ ...operation, headers: bearer('acme') });
    const unknown = await app.inject({ ...ghostOps[index]!, headers: bearer('acme') });
    const seen = `${operation.method} ${operation.url} → ${foreign.statusCode} ${foreign.body}`;
    expect({ seen, status: foreign.statusCode, body: mask(foreign.body, globex) }).toEqual({ seen, status: unknown.statusCode, body: mask(unknown.body, ghost) });
    // Nothing of globex's that this request did not name: its question, and the knowledge bases acme may not use.
    const named = JSON.stringify(operation);
    for (const secret of [GLOBEX_QUESTION, KBS.globex]) if (!named.includes(secret)) expect({ seen, leaks: foreign.body.includes(secret) }).toEqual({ seen, leaks: false });
    expect({ seen, leaks: unknown.body.includes(KBS.globex) }).toEqual({ seen, leaks: false });
  }
}, 120_000);

test("a run acme starts on its knowledge base that does not exist fails UNKNOWN_KB naming that one only, not the knowledge bases that exist", async () => {
  const response = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question: '北极星X1的续航是多少？', kb: KBS.acme } });
  const outcome = JSON.parse(response.body) as { status: string; error: { type: string; message: string } | null };
  expect(outcome.status).toBe('failed');
  expect(outcome.error?.type).toBe('UNKNOWN_KB');
  expect(outcome.error?.message).toContain(`knowledge base "${KBS.acme}" does not exist`);
  for (const existing of [KBS.globex, KBS.default]) expect(outcome.error?.message).not.toContain(existing);
  // Its documents: the same answer as a name it may not use, no list either.
  const documents = await app.inject({ method: 'GET', url: `/api/kbs/${KBS.acme}/documents`, headers: bearer('acme') });
  expect(documents.statusCode).toBe(404);
  for (const existing of [KBS.globex, KBS.default]) expect(documents.body).not.toContain(existing);
  // The run's detail shows the same failure, and no other name either.
  const detail = await app.inject({ method: 'GET', url: `/api/runs/${encodeURIComponent((JSON.parse(response.body) as { workflowId: string }).workflowId)}/detail`, headers: bearer('acme') });
  expect(detail.statusCode).toBe(200);
  expect(detail.body).not.toContain(KBS.globex);
}, 120_000);

test("the operator's CLI still lists the knowledge bases that exist (its stores are opened with namesInErrors)", async () => {
  const cli = buildAdapters(loadConfig({ ...serviceEnvironment({ collection: KBS.default, dataDir }), MODEL_PROVIDER: 'offline' }), { namesInErrors: true });
  try {
    await expect(cli.knowledge.open(KBS.acme)).rejects.toThrow(new RegExp(`the knowledge bases are: .*${KBS.globex}`));
    await expect(adapters.knowledge.open(KBS.acme)).rejects.toThrow(`knowledge base "${KBS.acme}" does not exist; create it with`);
  } finally {
    await cli.close();
  }
}, 60_000);
