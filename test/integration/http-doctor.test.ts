import { closedPort } from '../support/cli-run';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DoctorReport } from '../../core/schemas/doctor';
import { loadConfig } from '../../runtime/load-config';
import { ApiError } from '../../server/http/api-schemas';
import { runDoctor } from '../../workers/doctor/run-doctor';
import { bearer, openHttpHarness, operatorBearer, type HttpHarness } from '../support/http-harness';
import { services } from '../support/services';
import { assertServicesReachable, serviceEnvironment } from '../support/worker-process';

/*
 * GET /api/doctor (issue 24 §3) on the real services: the checks of `ragtime doctor` (workers/doctor/), injected
 * as `ragtime serve` injects them (bin/main.ts), against the harness' worker on its own task queue; the offline
 * model provider. 200 with the report when every check passes, 503 with it when one fails, behind the bearer token.
 */

let harness: HttpHarness;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-http-doctor-'));
const envOf = (update: NodeJS.ProcessEnv = {}) =>
  loadConfig({ ...serviceEnvironment({ collection: `http_doctor_${process.pid}`, dataDir }), TEMPORAL_TASK_QUEUE: harness.taskQueue, MODEL_PROVIDER: 'offline', ...update });


beforeAll(async () => {
  await assertServicesReachable();
  harness = await openHttpHarness();
}, 120_000);
afterAll(async () => {
  await harness?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const getDoctor = (app: FastifyInstance, headers: Record<string, string> = operatorBearer()) => app.inject({ method: 'GET', url: '/api/doctor', headers });

test('every check passes → 200 with the report: a check per service and the offline model', async () => {
  const config = envOf();
  const app = harness.server({ doctor: () => runDoctor(config) });
  const response = await getDoctor(app);
  expect(response.statusCode).toBe(200);
  const report = DoctorReport.parse(JSON.parse(response.body));
  expect(report.checks.map((check) => [check.kind, check.ok])).toEqual(
    ['temporal', 'worker', 'milvus', 'embeddings', 'database', 'rerank', 'model'].map((kind) => [kind, true]),
  );
  expect(report).toMatchObject({ ok: true });
  expect(report.checks[1]?.target).toBe(`task queue ${harness.taskQueue}`);
});

test('Milvus on a closed port → 503 with the same report shape, its failure line naming Milvus and the address', async () => {
  const address = `127.0.0.1:${await closedPort()}`;
  const config = envOf({ MILVUS_ADDRESS: address });
  const app = harness.server({ doctor: () => runDoctor(config) });
  const response = await getDoctor(app);
  expect(response.statusCode).toBe(503);
  const report = DoctorReport.parse(JSON.parse(response.body));
  expect(report.ok).toBe(false);
  expect(report.checks.filter((check) => !check.ok)).toEqual([
    expect.objectContaining({ kind: 'milvus', target: address, detail: expect.stringMatching(new RegExp(`^Milvus at ${address} is unreachable \\(connect ECONNREFUSED ${address}\\): start it with`)) }),
  ]);
  expect(report.checks.find((check) => check.kind === 'temporal')).toMatchObject({ ok: true, target: services.temporalAddress });
});

test('the same token auth as every /api route: 401 without a token or with an unknown one', async () => {
  let runs = 0;
  const app = harness.server({ doctor: async () => (runs++, { ok: true, checks: [] }) });
  for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Array<Record<string, string>>) {
    const response = await getDoctor(app, headers);
    expect(response.statusCode).toBe(401);
    expect(ApiError.parse(JSON.parse(response.body)).error).toBe('UNAUTHORIZED');
  }
  expect(runs).toBe(0);
});

test("issue 35 §3: the operator's token only — a tenant's gets the 404 of a path that does not exist, and the operator's opens no tenant route", async () => {
  let runs = 0;
  const app = harness.server({ doctor: async () => (runs++, { ok: true, checks: [] }) });
  for (const tenant of ['acme', 'globex'] as const) {
    const response = await getDoctor(app, bearer(tenant));
    expect([response.statusCode, JSON.parse(response.body)]).toEqual([404, { error: 'NOT_FOUND', message: 'no route GET /api/doctor' }]);
    const unknownRoute = await app.inject({ method: 'GET', url: '/api/doctors', headers: bearer(tenant) });
    expect(JSON.parse(unknownRoute.body)).toEqual({ error: 'NOT_FOUND', message: 'no route GET /api/doctors' });
  }
  expect(runs).toBe(0);
  expect((await getDoctor(app)).statusCode).toBe(200);
  const asTenant = await app.inject({ method: 'GET', url: '/api/runs', headers: operatorBearer() });
  expect([asTenant.statusCode, ApiError.parse(JSON.parse(asTenant.body)).message]).toEqual([401, "an operator's token opens GET /api/doctor only; this route needs a tenant's token"]);
});

test('requests that arrive while a run is in flight share it (a probe calls every model once)', async () => {
  let runs = 0;
  const config = envOf();
  const app = harness.server({ doctor: () => (runs++, runDoctor(config)) });
  const responses = await Promise.all([getDoctor(app), getDoctor(app), getDoctor(app)]);
  expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
  expect(runs).toBe(1);
  // Once it has settled, the next request runs the checks again.
  expect((await getDoctor(app)).statusCode).toBe(200);
  expect(runs).toBe(2);
});

test('a server started without the checks answers 503 SERVICE_UNAVAILABLE, and /openapi.json documents the route', async () => {
  const app = harness.server();
  const response = await getDoctor(app);
  expect(response.statusCode).toBe(503);
  expect(ApiError.parse(JSON.parse(response.body))).toEqual({
    error: 'SERVICE_UNAVAILABLE',
    message: "this server was started without the doctor's checks; run `ragtime doctor` where it runs",
  });
  const document = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as { paths: Record<string, { get?: { responses?: Record<string, unknown> } }> };
  expect(Object.keys(document.paths['/api/doctor']?.get?.responses ?? {})).toEqual(['200', '401', '404', '503']);
});
