/**
 * Issue 45 §2: `ragtime tenant purge` erases a whole tenant, read back store by store afterwards, on SQLite and on
 * PostgreSQL, with the dev server. Two tenants of this run (unique names: the PostgreSQL database and the dev server
 * are shared with other suites) each have a session answered with a streamed answer and a session waiting for a
 * person (asked through the HTTP API, so owners, turns, audit and diagnosis rows and answer-stream events are the
 * worker's own), a knowledge base of their own with documents (real Milvus collections, parent rows, records), and a
 * knowledge base they share. The purge, by the command as an operator runs it:
 *   --dry-run shows the counts and changes nothing; without --yes and without a terminal it refuses; with a run in
 *   flight it refuses; with --cancel-runs it cancels that run and erases. Then every row of every SQL table is scanned
 *   for anything of the purged tenant (its name, sessions, questions, runs, knowledge base), Milvus is asked for its
 *   collection, Temporal for its runs (describe and list), the API for its token; and the other tenant's rows, runs
 *   (its waiting run still waiting), collections and token are as before. The one row left is the purged mark
 *   (purged_tenant: the name only), which `tenant readmit` removes.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ingestActivities } from '../../activities/ingest-activities';
import { createTenantDirectory } from '../../server/http/tenant-directory';
import { hashToken } from '../../server/http/token-auth';
import { TEST_CODEC_KEY_1 } from '../support/codec-keys';
import { runRagtime, type CliRun } from '../support/cli-run';
import { clarifyQuestion, openHttpHarness, streamedQuestion, type HttpHarness } from '../support/http-harness';
import { FakeEmbedder } from '../support/ingest-doubles';
import { newMilvusClient } from '../support/milvus';
import { realKnowledge, type RealKnowledge } from '../support/real-knowledge';
import { services } from '../support/services';
import { rowsHolding, within } from '../support/sql-rows';
import { assertServicesReachable, serviceEnvironment, tail } from '../support/worker-process';

type Backend = { name: string; databaseUrl?: string };
const BACKENDS: Backend[] = [{ name: 'SQLite' }, { name: 'PostgreSQL', databaseUrl: services.testDatabaseUrl }];

const silentLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe.each(BACKENDS)('tenant purge on $name and the dev server', (backend) => {
  const tag = `${backend.name.toLowerCase()}${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const tenants = { gone: `acme-${tag}`, kept: `globex-${tag}` };
  const tokens = { gone: `token-gone-${tag}`, kept: `token-kept-${tag}` };
  const kbs = { gone: `purge_a_${tag}`, kept: `purge_g_${tag}`, shared: `purge_s_${tag}`, default: `purge_d_${tag}` };
  const sessions = { goneAnswered: `gone-a-${tag}`, goneWaiting: `gone-w-${tag}`, keptAnswered: `kept-a-${tag}`, keptWaiting: `kept-w-${tag}` };
  const questions = { gone: [streamedQuestion(`甲${tag}`), clarifyQuestion(`乙${tag}`)], kept: [streamedQuestion(`丙${tag}`), clarifyQuestion(`丁${tag}`)] };
  const runs: { gone: string[]; kept: string[] } = { gone: [], kept: [] };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  let harness: HttpHarness;
  let app: FastifyInstance;
  let knowledge: RealKnowledge;
  let env: NodeJS.ProcessEnv;

  const sqlPlace = () => ({ databaseUrl: backend.databaseUrl, sqliteFiles: [harness.location.sqliteFile, path.join(path.dirname(harness.location.sqliteFile), 'ragtime.sqlite')] });
  const purgedNeedles = () => [tenants.gone, sessions.goneAnswered, sessions.goneWaiting, kbs.gone, ...questions.gone, ...runs.gone];
  const keptNeedles = () => [tenants.kept, sessions.keptAnswered, sessions.keptWaiting, kbs.kept, kbs.shared, ...questions.kept, ...runs.kept];
  const collections = async () => {
    const milvus = newMilvusClient();
    try {
      const names = (await milvus.listCollections()).data.map((collection) => collection.name);
      return Object.values(kbs).filter((kb) => names.includes(kb)).sort();
    } finally {
      await milvus.closeConnection();
    }
  };
  const ragtime = (...args: string[]) => runRagtime(args, env, 180_000);
  /** The command's JSON, or a failure showing what it printed. */
  const json = (run: CliRun) => {
    if (run.code !== 0) throw new Error(`exit ${run.code}:\n${tail(run.stdout)}\n${tail(run.stderr)}`);
    return JSON.parse(run.stdout);
  };
  const turnsStatus = async (token: string, sessionId: string) => (await app.inject({ method: 'GET', url: `/api/sessions/${sessionId}/turns`, headers: bearer(token) })).statusCode;

  beforeAll(async () => {
    await assertServicesReachable();
    harness = await openHttpHarness(backend.databaseUrl ? { databaseUrl: backend.databaseUrl } : {});
    const configured = [
      { tenant: tenants.gone, sha256: hashToken(tokens.gone), kbs: [kbs.gone, kbs.shared] },
      { tenant: tenants.kept, sha256: hashToken(tokens.kept), kbs: [kbs.kept, kbs.shared] },
    ];
    app = harness.server({ tenants: createTenantDirectory({ tokens: configured, owners: harness.owners, purged: harness.owners, defaultKb: kbs.default }) });
    const dataDir = path.dirname(harness.location.sqliteFile);
    env = {
      ...serviceEnvironment({ collection: kbs.default, dataDir }),
      ...(backend.databaseUrl ? { DATABASE_URL: backend.databaseUrl } : {}),
      TEMPORAL_TASK_QUEUE: harness.taskQueue,
      RAGTIME_CODEC_KEYS: TEST_CODEC_KEY_1,
      RAGTIME_API_TOKENS: configured.map((token) => `${token.tenant}:${token.sha256}:${token.kbs.join('|')}`).join(','),
    };

    // Knowledge bases with documents, in the stores the command opens (the data dir's ragtime.sqlite, or DATABASE_URL).
    knowledge = realKnowledge({ kb: kbs.default, sqliteFile: path.join(dataDir, 'ragtime.sqlite'), databaseUrl: backend.databaseUrl, embedder: new FakeEmbedder(services.embeddingDim) });
    const ingest = ingestActivities({ knowledge: knowledge.knowledge });
    for (const kb of [kbs.gone, kbs.kept, kbs.shared]) {
      await knowledge.knowledge.create(kb);
      for (const name of ['one', 'two']) {
        const file = path.join(dataDir, `${kb}-${name}.md`);
        writeFileSync(file, `# ${kb} ${name}\n\n${Array.from({ length: 30 }, (_, i) => `Paragraph ${i} of ${name} in ${kb}.`).join('\n\n')}`);
        await new MockActivityEnvironment(undefined, { logger: silentLogger }).run(ingest.ingestFile, { file, filename: `${name}.md`, docId: `${name}.md`, kb });
      }
      await knowledge.knowledge.open(kb).then(({ leafStore }) => leafStore.flush?.());
    }

    const ask = async (token: string, question: string, sessionId: string) => {
      const response = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer(token), payload: { question, sessionId } });
      expect([response.statusCode, response.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
      return JSON.parse(response.body) as { workflowId: string; status: string };
    };
    const asked = await Promise.all([
      ask(tokens.gone, questions.gone[0]!, sessions.goneAnswered),
      ask(tokens.gone, questions.gone[1]!, sessions.goneWaiting),
      ask(tokens.kept, questions.kept[0]!, sessions.keptAnswered),
      ask(tokens.kept, questions.kept[1]!, sessions.keptWaiting),
    ]);
    expect(asked.map((run) => run.status)).toEqual(['completed', 'awaiting_input', 'completed', 'awaiting_input']);
    runs.gone.push(asked[0]!.workflowId, asked[1]!.workflowId);
    runs.kept.push(asked[2]!.workflowId, asked[3]!.workflowId);
  }, 240_000);

  afterAll(async () => {
    await harness?.env.client.workflow.getHandle(runs.kept[1] ?? 'none').terminate('test over').catch(() => undefined);
    for (const kb of [kbs.gone, kbs.kept, kbs.shared]) await knowledge?.knowledge.drop(kb).catch(() => undefined);
    await knowledge?.close();
    await harness?.owners.readmit(tenants.gone).catch(() => undefined);
    const dataDir = harness ? path.dirname(harness.location.sqliteFile) : null;
    await harness?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  test('--dry-run shows the counts per store and erases nothing; no --yes without a terminal, or a run in flight, is refused', async () => {
    const before = await rowsHolding(sqlPlace(), purgedNeedles());
    expect(Object.keys(before).sort()).toEqual(expect.arrayContaining(['answer_stream_event', 'diagnosis_event', 'documents', 'parent_chunks', 'session_owner', 'session_turn', 'tool_invocation']));

    const inventory = json(await ragtime('tenant', 'purge', tenants.gone, '--dry-run', '--json'));
    expect(inventory).toMatchObject({
      tenant: tenants.gone,
      sessions: [sessions.goneAnswered, sessions.goneWaiting],
      temporalRuns: 2,
      runsInFlight: [runs.gone[1]],
      // The waiting run has no turn yet: its question is not answered.
      sessionTurns: 1,
      knowledgeBases: [{ kb: kbs.gone, documents: 2, parents: expect.any(Number), leaves: expect.any(Number) }],
      sharedKnowledgeBases: [{ kb: kbs.shared, with: [tenants.kept] }],
      tokens: 1,
      sessionOwners: 2,
      alreadyPurged: false,
    });
    expect([inventory.auditInvocations, inventory.auditEvents, inventory.answerStreamEvents, inventory.knowledgeBases[0].parents, inventory.knowledgeBases[0].leaves].every((n: number) => n > 0)).toBe(true);
    const text = await ragtime('tenant', 'purge', tenants.gone, '--dry-run');
    expect(text.stdout).toContain(`  knowledge bases kept (shared):     ${kbs.shared} (with ${tenants.kept})`);
    expect(text.stdout).toContain('(dry run: nothing was erased)');

    const unasked = await ragtime('tenant', 'purge', tenants.gone);
    expect([unasked.code, unasked.stderr]).toEqual([2, expect.stringContaining(`tenant "${tenants.gone}" has 2 sessions, 2 runs and 1 knowledge base of its own; nothing was erased: pass --yes`)]);
    const inFlight = await ragtime('tenant', 'purge', tenants.gone, '--yes');
    expect([inFlight.code, inFlight.stderr]).toEqual([2, expect.stringContaining(`has 1 run in flight (${runs.gone[1]}); nothing was erased: wait until it ends, or pass --cancel-runs`)]);

    expect(await rowsHolding(sqlPlace(), purgedNeedles())).toEqual(before);
    expect(await collections()).toEqual([kbs.gone, kbs.kept, kbs.shared].sort());
    expect(await turnsStatus(tokens.gone, sessions.goneAnswered)).toBe(200);
  }, 240_000);

  test('--yes --cancel-runs erases every store of the tenant and refuses its token; the other tenant keeps everything', async () => {
    const keptBefore = await rowsHolding(sqlPlace(), keptNeedles());
    const keptStats = await Promise.all([kbs.kept, kbs.shared].map((kb) => knowledge.knowledge.stats(kb)));

    const erasure = json(await ragtime('tenant', 'purge', tenants.gone, '--yes', '--cancel-runs', '--json'));
    expect(erasure).toMatchObject({ tenant: tenants.gone, sessions: 2, cancelledRuns: [runs.gone[1]], temporalRuns: 2, temporalPending: [], sessionTurns: 1, tokens: 1, sessionOwners: 2 });
    expect(erasure.knowledgeBases.map((kb: { kb: string }) => kb.kb)).toEqual([kbs.gone]);

    // SQL: of the tenant, only the mark that refuses its tokens (its name) is left, in any table.
    expect(await rowsHolding(sqlPlace(), purgedNeedles())).toEqual({ purged_tenant: 1 });
    // Milvus: its collection is gone; the other tenant's and the shared one hold what they held.
    expect(await collections()).toEqual([kbs.kept, kbs.shared].sort());
    expect(await Promise.all([kbs.kept, kbs.shared].map((kb) => knowledge.knowledge.stats(kb)))).toEqual(keptStats);
    // Temporal: histories gone (describe), and visibility (list by session) once the server has deleted them.
    for (const workflowId of runs.gone) {
      const described = await harness.env.client.workflow.getHandle(workflowId).describe().then(() => 'found', (error: Error) => error.name);
      expect([workflowId, described]).toEqual([workflowId, 'WorkflowNotFoundError']);
    }
    const listed = await within(30_000, async () => {
      const ids: string[] = [];
      for await (const run of harness.env.client.workflow.list({ query: `RagSessionId = "${sessions.goneAnswered}" OR RagSessionId = "${sessions.goneWaiting}"` })) ids.push(run.workflowId);
      return ids;
    }, (ids) => ids.length === 0);
    expect(listed).toEqual([]);
    // Its token is refused; the other tenant's is not.
    expect([await turnsStatus(tokens.gone, sessions.goneAnswered), await turnsStatus(tokens.kept, sessions.keptAnswered)]).toEqual([401, 200]);

    // The other tenant: every row, both runs (the waiting one still waits).
    expect(await rowsHolding(sqlPlace(), keptNeedles())).toEqual(keptBefore);
    const keptRuns = await Promise.all(runs.kept.map(async (workflowId) => (await harness.env.client.workflow.getHandle(workflowId).describe()).status.name));
    expect(keptRuns).toEqual(['COMPLETED', 'RUNNING']);

    // Again: nothing left to erase; then readmitted, its token is accepted once more (its data stays erased).
    expect(json(await ragtime('tenant', 'purge', tenants.gone, '--dry-run', '--json'))).toMatchObject({ sessions: [], temporalRuns: 0, sessionTurns: 0, auditInvocations: 0, auditEvents: 0, knowledgeBases: [], sessionOwners: 0, alreadyPurged: true });
    const readmit = await ragtime('tenant', 'readmit', tenants.gone);
    expect([readmit.code, readmit.stdout]).toEqual([0, `tenant "${tenants.gone}" readmitted: servers reading this database accept its tokens again\n`]);
    // Accepted (no 401); its session is gone, so: not found.
    expect(await turnsStatus(tokens.gone, sessions.goneAnswered)).toBe(404);
    expect(await rowsHolding(sqlPlace(), purgedNeedles())).toEqual({});
  }, 300_000);
});
