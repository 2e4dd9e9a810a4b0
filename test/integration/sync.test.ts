/**
 * Synced sources (issue 46) on the real services: a Temporal dev server, Milvus Lite and a SQLite store of the test's
 * own, passes started by the source's Temporal Schedule and run by an in-process worker. The embedder is the
 * deterministic one of the ingest tests (counting what it embeds); the worker-kill case, in sync-kill.test.ts, runs
 * `ragtime worker` processes on a real embeddings server.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createSyncPassStore, type SqlSyncPassStore } from '../../activities/adapters/sql-sync-passes';
import { addSyncSource, removeSyncSource, runSyncNow } from '../../client/sync-schedule';
import { syncSourceStatus } from '../../client/sync-status';
import type { SyncPassReport } from '../../core/sync/sync-io';
import { FakeEmbedder } from '../support/ingest-doubles';
import { newMilvusClient } from '../support/milvus';
import { startPrivateDevServer, type PrivateDevServer } from '../support/private-dev-server';
import { startPrivateMilvus, type PrivateMilvus } from '../support/private-services';
import { realKnowledge, type RealKnowledge } from '../support/real-knowledge';
import { pollUntil, services } from '../support/services';
import { newPasses, passIds, passOutcome } from '../support/sync-passes';
import { openWorkflowEnv, scriptedAdapters, type WorkflowEnv } from '../workflows/harness';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { createSessionOwnerStore } from '../../activities/adapters/sql-session-owners';
import { RagClient } from '../../client/rag-client';
import { createHttpServer } from '../../server/http/create-http-server';
import { createTenantDirectory } from '../../server/http/tenant-directory';
import { hashToken } from '../../server/http/token-auth';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../server/mcp/create-mcp-server';
import { localScope } from '../../server/mcp/mcp-scope';
import { newMcpClient } from '../support/mcp-client';

const KB = `sync_${Date.now()}_${randomBytes(3).toString('hex')}`;
let tmp = '';
let temporalServer: PrivateDevServer;
let milvus: PrivateMilvus;
let env: WorkflowEnv;
let real: RealKnowledge;
let passes: SqlSyncPassStore;
let worker: Worker;
let running: Promise<void>;
const embedder = new FakeEmbedder(services.embeddingDim);
const taskQueue = `sync-${randomUUID()}`;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-sync-it-'));
  [temporalServer, milvus] = await Promise.all([startPrivateDevServer(tmp), startPrivateMilvus(path.join(tmp, 'milvus'))]);
  env = await openWorkflowEnv({ address: temporalServer.address });
  real = realKnowledge({ kb: KB, sqliteFile: path.join(tmp, 'ragtime.sqlite'), embedder, milvusAddress: milvus.address });
  passes = createSyncPassStore({ sqliteFile: path.join(tmp, 'audit.sqlite') });
  const { models, retriever } = scriptedAdapters({ retrieve: () => { throw new Error('retrieval is not part of a sync pass'); } });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever, ingest: { knowledge: real.knowledge }, sync: { knowledge: real.knowledge, passes, filesDir: path.join(tmp, 'sync-files') } }),
  });
  running = worker.run();
  void newMilvusClient; // imported first for its jest.mock of the SDK's Parquet writer (see test/support/milvus.ts)
}, 180_000);

afterAll(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await passes?.close();
  await real?.close();
  await env?.close();
  await Promise.allSettled([temporalServer?.stop(), milvus?.stop()]);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const paragraph = (n: number) => `第${n}段。${'检索增强生成把知识库里的证据交给模型，模型据此作答。'.repeat(20)}`;
const write = (root: string, rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};
const docsOf = async (source: string) => (await real.knowledge.documents.list(KB)).filter((record) => record.doc_id.startsWith(`${source}/`));
const counts = async (docId: string) => {
  const stores = await real.knowledge.open(KB);
  return { parents: await stores.parentStore.countByDocument(docId), leaves: await stores.leafStore.countByDocument(docId) };
};
const texts = () => embedder.batches.flat().length;

/** Starts a pass now (after those already started) and waits for it. */
async function passNow(source: string): Promise<SyncPassReport | { failure: { type: string; message: string } }> {
  const before = await passIds(env.client, source);
  await runSyncNow(env.client, source);
  const [id] = await newPasses(env.client, source, before);
  return passOutcome(env.client, id!);
}

const pick = (report: SyncPassReport | { failure: unknown }) =>
  'failure' in report ? report : { status: report.status, added: report.added, changed: report.changed, removed: report.removed, renamed: report.renamed, unchanged: report.unchanged, failed: report.failed.map((f) => [f.path, f.type]) };

test('a folder: added on the first pass; an edited paragraph re-embeds only its leaves, a delete removes every chunk, a rename keeps its vectors', async () => {
  const root = path.join(tmp, 'handbook');
  write(root, 'guide.md', `# 指南\n\n${[1, 2, 3, 4, 5, 6].map(paragraph).join('\n\n')}`);
  write(root, 'faq/old-name.md', `# 常见问题\n\n${paragraph(7)}`);
  write(root, 'gone.txt', '这个文件之后会被删除。');
  write(root, 'skip/ignored.md', '# 不同步\n\n被 exclude 排除。');
  write(root, 'image.png', 'not a document');
  const before = texts();
  const added = await addSyncSource(env.client, taskQueue, { source: 'handbook', path: root, kb: KB, every: '1h', exclude: ['skip/**'] });
  expect(added.created).toBe(true);
  const [first] = await newPasses(env.client, 'handbook', []);
  const one = (await passOutcome(env.client, first!)) as SyncPassReport;
  expect(pick(one)).toEqual({ status: 'synced', added: 3, changed: 0, removed: 0, renamed: 0, unchanged: 0, failed: [] });
  expect(one.leaves_embedded).toBe(texts() - before);
  expect((await docsOf('handbook')).map((d) => d.doc_id)).toEqual(['handbook/faq/old-name.md', 'handbook/gone.txt', 'handbook/guide.md']);
  const guide = (await docsOf('handbook')).find((d) => d.doc_id === 'handbook/guide.md')!;
  expect(guide.l3).toBeGreaterThan(3);

  // One paragraph edited, one file deleted, one renamed (same bytes, new path).
  write(root, 'guide.md', `# 指南\n\n${[1, 2, 3, 4, 5, 6].map((n) => (n === 4 ? paragraph(40) : paragraph(n))).join('\n\n')}`);
  rmSync(path.join(root, 'gone.txt'));
  mkdirSync(path.join(root, 'help'));
  renameSync(path.join(root, 'faq/old-name.md'), path.join(root, 'help/new-name.md'));
  const beforeEdit = texts();
  const two = (await passNow('handbook')) as SyncPassReport;
  expect(pick(two)).toEqual({ status: 'synced', added: 0, changed: 1, removed: 1, renamed: 1, unchanged: 0, failed: [] });
  // Only the edited paragraph's leaves were embedded (the rename's context is its "# 常见问题" title: unchanged).
  expect(two.leaves_embedded).toBe(texts() - beforeEdit);
  expect(two.leaves_embedded).toBeGreaterThan(0);
  expect(two.leaves_embedded).toBeLessThan(guide.l3);
  expect(two.leaves_reused).toBe(guide.l3 - two.leaves_embedded + 1);
  expect((await docsOf('handbook')).map((d) => d.doc_id)).toEqual(['handbook/guide.md', 'handbook/help/new-name.md']);
  expect(await counts('handbook/gone.txt')).toEqual({ parents: 0, leaves: 0 });
  expect(await counts('handbook/faq/old-name.md')).toEqual({ parents: 0, leaves: 0 });
  expect(await counts('handbook/help/new-name.md')).toEqual({ parents: 2, leaves: 1 });

  // Nothing changed: nothing embedded, and the report is kept in SQL and read by the status.
  const beforeSame = texts();
  expect(pick(await passNow('handbook'))).toEqual({ status: 'synced', added: 0, changed: 0, removed: 0, renamed: 0, unchanged: 2, failed: [] });
  expect(texts()).toBe(beforeSame);
  const [kept] = await passes.passesOf('handbook', 1);
  expect(kept).toMatchObject({ source: 'handbook', kb: KB, kind: 'folder', unchanged: 2 });
  const status = await syncSourceStatus(env.client, 'handbook');
  expect(status).toMatchObject({ source: 'handbook', every: '3600s', paused: false, lastPass: { report: { unchanged: 2 } } });
  await removeSyncSource(env.client, 'handbook');
}, 240_000);

test('a git work tree: the branch head is read (not the work tree), the report names the commit, and the branch moving is followed', async () => {
  const repo = path.join(tmp, 'repo');
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
  mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  write(repo, 'README.md', `# 仓库\n\n${paragraph(1)}`);
  write(repo, 'docs/a.md', `# A\n\n${paragraph(2)}`);
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  const first = git('rev-parse', 'HEAD');
  await addSyncSource(env.client, taskQueue, { source: 'repo', path: repo, kb: KB, every: '1h', branch: 'main' });
  const [id] = await newPasses(env.client, 'repo', []);
  const one = (await passOutcome(env.client, id!)) as SyncPassReport;
  expect([one.kind, one.commit, one.added]).toEqual(['git', first, 2]);

  // The branch moves: a.md changed, b.md added; an uncommitted file in the work tree is not read.
  write(repo, 'docs/a.md', `# A\n\n${paragraph(20)}`);
  write(repo, 'docs/b.md', `# B\n\n${paragraph(3)}`);
  git('add', '.');
  git('commit', '-q', '-m', 'two');
  const second = git('rev-parse', 'HEAD');
  write(repo, 'docs/uncommitted.md', '# 未提交\n\n不应同步。');
  const two = (await passNow('repo')) as SyncPassReport;
  expect([two.commit, pick(two)]).toEqual([second, { status: 'synced', added: 1, changed: 1, removed: 0, renamed: 0, unchanged: 1, failed: [] }]);
  expect((await docsOf('repo')).map((d) => d.doc_id)).toEqual(['repo/README.md', 'repo/docs/a.md', 'repo/docs/b.md']);
  // The files written for ingestion are gone once the pass ends.
  expect(execFileSync('find', [path.join(tmp, 'sync-files'), '-type', 'f'], { encoding: 'utf8' })).toBe('');
  await removeSyncSource(env.client, 'repo');
}, 240_000);

test('a vanished source fails with SOURCE_UNAVAILABLE, an emptied one with MASS_DELETE_REFUSED, and neither removes anything; a bad file fails alone and is retried', async () => {
  const root = path.join(tmp, 'mounted');
  for (const n of [1, 2, 3]) write(root, `n${n}.md`, `# N${n}\n\n${paragraph(n)}`);
  await addSyncSource(env.client, taskQueue, { source: 'mounted', path: root, kb: KB, every: '1h' });
  const [id] = await newPasses(env.client, 'mounted', []);
  expect(pick(await passOutcome(env.client, id!))).toMatchObject({ added: 3 });

  renameSync(root, `${root}.away`); // unmounted
  const gone = await passNow('mounted');
  expect(gone).toEqual({ failure: { type: 'SOURCE_UNAVAILABLE', message: expect.stringContaining(`the source folder ${root} cannot be read (ENOENT)`) } });
  mkdirSync(root); // an empty mount point
  const empty = await passNow('mounted');
  expect(empty).toEqual({ failure: { type: 'MASS_DELETE_REFUSED', message: expect.stringContaining('would remove 3 of the source\'s 3 documents (100 %), more than 50 %') } });
  expect((await docsOf('mounted')).length).toBe(3);
  const [refused] = await passes.passesOf('mounted', 1);
  expect(refused).toMatchObject({ status: 'failed', error: { type: 'MASS_DELETE_REFUSED' } });

  rmSync(root, { recursive: true });
  renameSync(`${root}.away`, root);
  write(root, 'broken.pdf', 'not a pdf');
  write(root, 'a::b.md', '# 不能作为文档 id\n\n文件名里有 ::。');
  const partial = await passNow('mounted');
  expect(pick(partial)).toEqual({ status: 'partial', added: 0, changed: 0, removed: 0, renamed: 0, unchanged: 3, failed: [['a::b.md', 'INVALID_INPUT'], ['broken.pdf', 'CORRUPT_FILE']] });
  expect(pick(await passNow('mounted'))).toMatchObject({ status: 'partial', failed: [['a::b.md', 'INVALID_INPUT'], ['broken.pdf', 'CORRUPT_FILE']] }); // tried again
  await removeSyncSource(env.client, 'mounted');
}, 240_000);

test('two triggers at once: the passes never run side by side, and the documents are written once', async () => {
  const root = path.join(tmp, 'busy');
  for (const n of [1, 2, 3, 4]) write(root, `b${n}.md`, `# B${n}\n\n${paragraph(n)}`);
  await addSyncSource(env.client, taskQueue, { source: 'busy', path: root, kb: KB, every: '1h' });
  const [first] = await newPasses(env.client, 'busy', []);
  await passOutcome(env.client, first!);
  write(root, 'b5.md', `# B5\n\n${paragraph(5)}`);
  const before = await passIds(env.client, 'busy');
  await Promise.all([runSyncNow(env.client, 'busy'), runSyncNow(env.client, 'busy')]);
  await newPasses(env.client, 'busy', before, 1);
  // Settled: nothing running or buffered. Both triggers fell in one second, whose pass has one workflow id: Temporal
  // starts the buffered one after the first closed, or drops it as that second's start (seen here: one pass).
  await pollUntil('no pass of busy running', async () => ((await env.client.schedule.getHandle('ragtime-sync-busy').describe()).info.runningActions.length === 0 ? true : undefined), { timeoutMs: 60_000 });
  const started = await newPasses(env.client, 'busy', before, 1);
  const reports = (await Promise.all(started.map((run) => passOutcome(env.client, run)))) as SyncPassReport[];
  const ordered = [...reports].sort((x, y) => x.started_at.localeCompare(y.started_at));
  for (let i = 1; i < ordered.length; i += 1) expect(ordered[i - 1]!.finished_at <= ordered[i]!.started_at).toBe(true);
  expect(ordered.reduce((sum, report) => sum + report.added, 0)).toBe(1);
  const docs = await docsOf('busy');
  expect(docs.length).toBe(5);
  for (const doc of docs) expect(await counts(doc.doc_id)).toEqual({ parents: doc.l1 + doc.l2, leaves: doc.l3 });
  await removeSyncSource(env.client, 'busy');
}, 240_000);

test('the HTTP API lists sources with their last pass and runs one now, for the operator only', async () => {
  const root = path.join(tmp, 'api');
  write(root, 'one.md', `# One\n\n${paragraph(1)}`);
  await addSyncSource(env.client, taskQueue, { source: 'api', path: root, kb: KB, every: '1h' });
  const [first] = await newPasses(env.client, 'api', []);
  await passOutcome(env.client, first!);
  const owners = createSessionOwnerStore({ sqliteFile: path.join(tmp, 'audit.sqlite') });
  const auditStore = createAuditStore({ sqliteFile: path.join(tmp, 'audit.sqlite'), includeContent: false });
  const tenants = createTenantDirectory({ tokens: [{ tenant: 'acme', sha256: hashToken('acme-token-0123456789abcdef'), kbs: [KB] }], operatorTokens: [hashToken('operator-token-0123456789abcdef')], owners, purged: owners, defaultKb: KB });
  const app = createHttpServer({ rag: RagClient.fromClient(env.client, taskQueue), auditStore, tenants, limits: { bodyLimitBytes: 64 * 1024 }, syncPasses: passes });
  const operator = { authorization: 'Bearer operator-token-0123456789abcdef' };
  try {
    const listed = await app.inject({ method: 'GET', url: '/api/sync/sources', headers: operator });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().sources.find((s: { source: string }) => s.source === 'api')).toMatchObject({ scheduleId: 'ragtime-sync-api', every: '3600s', lastPass: { report: { added: 1, status: 'synced' } } });
    expect((await app.inject({ method: 'GET', url: '/api/sync/sources', headers: { authorization: 'Bearer acme-token-0123456789abcdef' } })).statusCode).toBe(404);
    // A tenant reads the sources of its own knowledge bases, without their path (the console's Sources page).
    const mine = await app.inject({ method: 'GET', url: '/api/sources', headers: { authorization: 'Bearer acme-token-0123456789abcdef' } });
    expect(mine.json().sources.find((s: { source: string }) => s.source === 'api')).toMatchObject({ kb: KB, kind: 'folder', lastPass: { report: { added: 1 } } });
    expect(mine.body).not.toContain(root);
    expect((await app.inject({ method: 'GET', url: '/api/sync/sources/nope', headers: operator })).statusCode).toBe(404);
    write(root, 'two.md', `# Two\n\n${paragraph(2)}`);
    const before = await passIds(env.client, 'api');
    const run = await app.inject({ method: 'POST', url: '/api/sync/sources/api/run', headers: operator });
    expect([run.statusCode, run.json()]).toEqual([202, { source: 'api', started: true }]);
    const [second] = await newPasses(env.client, 'api', before);
    expect(pick(await passOutcome(env.client, second!))).toMatchObject({ added: 1, unchanged: 1 });
    // MCP over stdio (the local user): the resource lists the sources with their last pass.
    const server = createMcpServer({ rag: RagClient.fromClient(env.client, taskQueue), scope: localScope({ kbOf: (kb) => kb }) });
    const client = newMcpClient('sync-test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    const read = await client.readResource({ uri: 'ragtime://sync/sources' });
    const listedOverMcp = JSON.parse(String((read.contents[0] as { text?: string } | undefined)?.text)) as { sources: Array<{ source: string; lastPass: { report: { added: number } } | null }> };
    expect(listedOverMcp.sources.find((s) => s.source === 'api')?.lastPass?.report.added).toBe(1);
    await client.close();
    await server.close();
  } finally {
    await app.close();
    await Promise.allSettled([owners.close(), auditStore.close()]);
    await removeSyncSource(env.client, 'api');
  }
}, 240_000);
