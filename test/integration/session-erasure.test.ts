import type { FastifyInstance } from 'fastify';
import { createSessionEraser } from '../../client/erase-session';
import { bearer, clarifyQuestion, openHttpHarness, streamedQuestion, type HttpHarness } from '../support/http-harness';
import { TEST_CODEC_KEY_1 } from '../support/codec-keys';
import { services } from '../support/services';
import { rowsHolding as rowsIn, within } from '../support/sql-rows';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RAGTIME_BIN, assertServicesReachable, serviceEnvironment } from '../support/worker-process';

/*
 * Issue 35 §2: DELETE /api/sessions/{id} erases a session from every store, read back store by store afterwards: every
 * table of the audit database (SQLite, then PostgreSQL) scanned row by row for the session's question text and its
 * runs' ids, the runs' Temporal histories (describe) and visibility (list by RagSessionId), the answer stream's table.
 * A session of the same tenant asked beside it is untouched. A run still waiting for a person is cancelled first.
 * Skipping any one store leaves rows that the scan finds, and the test fails.
 */

type Backend = { name: string; databaseUrl?: string };
const BACKENDS: Backend[] = [{ name: 'SQLite' }, { name: 'PostgreSQL', databaseUrl: services.testDatabaseUrl }];

/** Rows of every table of the audit database whose text holds one of `needles`, per table. */
const rowsHolding = (backend: Backend, sqliteFile: string, needles: string[]) => rowsIn({ databaseUrl: backend.databaseUrl, sqliteFiles: [sqliteFile] }, needles);

describe.each(BACKENDS)('on $name', (backend) => {
  let harness: HttpHarness;
  let app: FastifyInstance;
  const tag = `${backend.name.toLowerCase()}-${process.pid}-${Date.now().toString(36)}`;
  const erased = { session: `erase-me-${tag}`, answered: streamedQuestion(`私密甲${tag}`), waiting: clarifyQuestion(`私密乙${tag}`) };
  const kept = { session: `keep-me-${tag}`, question: streamedQuestion(`保留${tag}`) };
  const workflows: { erased: string[]; kept: string[] } = { erased: [], kept: [] };

  beforeAll(async () => {
    await assertServicesReachable();
    harness = await openHttpHarness({ ...(backend.databaseUrl ? { databaseUrl: backend.databaseUrl } : {}) });
    const eraser = createSessionEraser({ temporal: harness.env.client, audit: harness.audit, turns: harness.turns, answerStream: harness.answerStream });
    app = harness.server({ eraseSession: (sessionId, tenant) => eraser.erase(sessionId, tenant) });
    const ask = async (question: string, sessionId: string) => {
      const response = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question, sessionId } });
      expect(response.statusCode).toBe(200);
      return JSON.parse(response.body) as { workflowId: string; status: string };
    };
    workflows.erased.push((await ask(erased.answered, erased.session)).workflowId);
    const waiting = await ask(erased.waiting, erased.session);
    expect(waiting.status).toBe('awaiting_input');
    workflows.erased.push(waiting.workflowId);
    workflows.kept.push((await ask(kept.question, kept.session)).workflowId);
  }, 180_000);

  afterAll(async () => {
    await harness?.close();
  }, 60_000);

  test('another tenant gets 404 and erases nothing', async () => {
    const response = await app.inject({ method: 'DELETE', url: `/api/sessions/${erased.session}`, headers: bearer('globex') });
    expect([response.statusCode, JSON.parse(response.body).error]).toEqual([404, 'NOT_FOUND']);
    expect((await harness.turns.turnsOf('acme', erased.session)).length).toBe(1);
  });

  test('the owner erases the session from every store; the session beside it is untouched; a second call erases nothing', async () => {
    const location = { file: harness.location.sqliteFile };
    const needles = [erased.answered, erased.waiting, ...workflows.erased];
    const before = await rowsHolding(backend, location.file, needles);
    // Every store holds something of it before: turns, audit rows, the streamed answer, the owner.
    expect(Object.keys(before).sort()).toEqual(expect.arrayContaining(['answer_stream_event', 'diagnosis_event', 'session_turn', 'tool_invocation']));
    const keptBefore = await rowsHolding(backend, location.file, [kept.question, ...workflows.kept]);

    const response = await app.inject({ method: 'DELETE', url: `/api/sessions/${erased.session}`, headers: bearer('acme') });
    expect(response.statusCode).toBe(200);
    const report = JSON.parse(response.body);
    expect(report).toMatchObject({ sessionId: erased.session, cancelledRuns: [workflows.erased[1]], temporalRuns: 2, temporalPending: [], sessionTurns: 1 });
    expect(report.auditInvocations).toBeGreaterThan(0);
    expect(report.auditEvents).toBeGreaterThan(0);
    expect(report.answerStreamEvents).toBeGreaterThan(0);

    // The database: no row anywhere holds the questions or the runs' ids.
    expect(await rowsHolding(backend, location.file, needles)).toEqual({});
    // Temporal: the histories are gone, and so are the runs from visibility (deleted asynchronously).
    for (const workflowId of workflows.erased) {
      const described = await within(5_000, () => harness.env.client.workflow.getHandle(workflowId).describe().then(() => 'found', (error: Error) => error.name), (name) => name !== 'found');
      expect([workflowId, described]).toEqual([workflowId, 'WorkflowNotFoundError']);
    }
    const listed = await within(30_000, async () => {
      const ids: string[] = [];
      for await (const run of harness.env.client.workflow.list({ query: `RagSessionId = "${erased.session}"` })) ids.push(run.workflowId);
      return ids;
    }, (ids) => ids.length === 0);
    expect(listed).toEqual([]);

    // The session beside it: every row and its run, as before.
    expect(await rowsHolding(backend, location.file, [kept.question, ...workflows.kept])).toEqual(keptBefore);
    expect((await harness.env.client.workflow.getHandle(workflows.kept[0]!).describe()).status.name).toBe('COMPLETED');

    // Idempotent: the owner asks again and is told nothing was left.
    const again = await app.inject({ method: 'DELETE', url: `/api/sessions/${erased.session}`, headers: bearer('acme') });
    expect([again.statusCode, JSON.parse(again.body)]).toEqual([
      200,
      { sessionId: erased.session, cancelledRuns: [], temporalRuns: 0, temporalPending: [], sessionTurns: 0, auditInvocations: 0, auditEvents: 0, answerStreamEvents: 0 },
    ]);
  }, 240_000);

  // The operator's commands, once per surface (the stores and the eraser are the ones tested above).
  // Registered on PostgreSQL only (no skip elsewhere): the CLI reads the database through DATABASE_URL.
  if (backend.databaseUrl) test('ragtime sessions rm erases as the API does; tenant purge asks first and, with no terminal, erases nothing without --yes', async () => {
    const session = `cli-erase-${tag}`;
    const question = streamedQuestion(`命令行${tag}`);
    const asked = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question, sessionId: session } });
    expect(asked.statusCode).toBe(200);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-erase-cli-'));
    try {
      const env = { ...serviceEnvironment({ collection: 'erase_cli_unused', dataDir }), DATABASE_URL: backend.databaseUrl, TEMPORAL_TASK_QUEUE: harness.taskQueue, RAGTIME_CODEC_KEYS: TEST_CODEC_KEY_1 };
      const ragtime = (...args: string[]) => spawnSync(process.execPath, [RAGTIME_BIN, ...args], { env, encoding: 'utf8', timeout: 150_000, input: '' });
      const purge = ragtime('tenant', 'purge', 'acme');
      expect([purge.status, purge.stderr]).toEqual([2, expect.stringMatching(/tenant "acme" has \d+ sessions?, \d+ runs? and \d+ knowledge bases? of its own; nothing was erased: pass --yes/)]);
      expect((await harness.turns.turnsOf('acme', session)).length).toBe(1);
      const removed = ragtime('sessions', 'rm', session, '--json');
      expect([removed.status, removed.stderr]).toEqual([0, ""]);
      expect(JSON.parse(removed.stdout)).toMatchObject({ sessionId: session, temporalRuns: 1, temporalPending: [], sessionTurns: 1 });
      expect(await rowsHolding(backend, '', [question])).toEqual({});
      const again = ragtime('sessions', 'rm', session);
      expect([again.status, again.stdout]).toEqual([0, expect.stringContaining('session turns:                     0')]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
