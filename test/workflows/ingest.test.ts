import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { IngestBatchResult } from '../../core/ingest/ingest-io';
import { ingestWorkflow } from '../../workflows';
import { ingestProgressQuery } from '../../workflows/messages';
import { ingestDoubles } from '../support/ingest-doubles';
import { openWorkflowEnv, scriptedAdapters, type WorkflowEnv } from './harness';

/*
 * ingestWorkflow on the dev server with the real activity code, wired to in-memory doubles of our own store and
 * embedder ports (test/support/ingest-doubles.ts). Real Milvus and SQL stores: test/integration/ingest.test.ts.
 */

const FIXTURES = path.join(__dirname, '../fixtures/docs');
const fixture = (name: string) => path.join(FIXTURES, name);
let env: WorkflowEnv;
let tmp: string;
beforeAll(async () => {
  env = await openWorkflowEnv();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-ingest-wf-'));
}, 120_000);
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await env?.close();
});

function ingestWorker(deps: ReturnType<typeof ingestDoubles>, taskQueue: string, identity?: string): Promise<Worker> {
  const { models, retriever } = scriptedAdapters({ retrieve: () => { throw new Error('retrieval is not part of ingestion'); } });
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...(identity ? { identity } : {}),
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever, ingest: deps }),
  });
}

async function withIngestWorker<T>(deps: ReturnType<typeof ingestDoubles>, fn: (run: (files: string[], ids?: string[]) => ReturnType<typeof start>, taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `test-${randomUUID()}`;
  const worker = await ingestWorker(deps, taskQueue);
  return worker.runUntil(fn((files, ids) => start(taskQueue, files, 'test batch', ids), taskQueue));
}

/** Document ids default to the base names here, so chunk ids read as the spec's (`<filename>::p…`). */
function start(taskQueue: string, files: string[], batchLabel = 'test batch', ids = files.map((file) => path.basename(file))) {
  return env.client.workflow.start(ingestWorkflow, { taskQueue, workflowId: `ingest-${randomUUID()}`, args: [{ files, ids, batchLabel }] });
}

const summary = (result: IngestBatchResult) => result.files.map((f) => [f.filename, f.status, f.l1, f.l2, f.l3, f.error?.type ?? null]);

describe('ingestWorkflow', () => {
  test('per-file results in input order, a corrupt, an empty and an unsupported file among good ones; totals', async () => {
    const deps = ingestDoubles();
    const files = ['guide.md', 'two-pages.pdf', 'corrupt.pdf', 'two-sections.html', 'notes.docx', 'blank.txt', 'plain.txt', 'notes.rtf'].map(fixture);
    const result = await withIngestWorker(deps, async (run) => (await run(files)).result());
    expect(summary(result)).toEqual([
      ['guide.md', 'ingested', 1, 1, 1, null],
      ['two-pages.pdf', 'ingested', 2, 2, 2, null],
      ['corrupt.pdf', 'failed', 0, 0, 0, 'CORRUPT_FILE'],
      ['two-sections.html', 'ingested', 3, 3, 3, null],
      ['notes.docx', 'ingested', 1, 1, 1, null],
      ['blank.txt', 'failed', 0, 0, 0, 'EMPTY_DOCUMENT'],
      ['plain.txt', 'ingested', 1, 1, 1, null],
      ['notes.rtf', 'failed', 0, 0, 0, 'UNSUPPORTED_FILE'],
    ]);
    expect(result.files[2]?.error?.message).toBe('corrupt.pdf: not a readable PDF: InvalidPDFException: Invalid PDF structure.');
    expect(result.files.every((f) => f.file === fixture(f.filename) && f.duration_ms >= 0)).toBe(true);
    expect(result).toMatchObject({ batchLabel: 'test batch', totals: { files: 8, ingested: 5, failed: 3, l1: 8, l2: 8, l3: 8 } });
    // Once, after the last file: the leaves are sealed for fast search.
    expect(result.flush).toEqual({ status: 'flushed', duration_ms: expect.any(Number) });
    expect(deps.leafStore.flushCalls).toBe(1);
    // The stores hold exactly the good files' chunks.
    expect(deps.leafStore.leaves).toHaveLength(8);
    expect(deps.parentStore.chunks.size).toBe(16);
    expect(deps.leafStore.ids('two-pages.pdf')).toEqual(['two-pages.pdf::p0::l3::0', 'two-pages.pdf::p1::l3::0']);
    expect(deps.leafStore.ids('two-sections.html')).toEqual(['two-sections.html::p1::l3::0', 'two-sections.html::p2::l3::0', 'two-sections.html::p3::l3::0']);
  });

  test('no flush when no file inserted a leaf', async () => {
    const deps = ingestDoubles();
    const result = await withIngestWorker(deps, async (run) => (await run([fixture('corrupt.pdf'), fixture('blank.txt')])).result());
    expect(result.totals).toMatchObject({ ingested: 0, failed: 2 });
    expect(result.flush).toBeUndefined();
    expect(deps.leafStore.flushCalls).toBe(0);
  });

  test('a flush that keeps failing is reported, and the batch still succeeds (the leaves stay searchable)', async () => {
    const deps = ingestDoubles();
    deps.leafStore.beforeFlush = () => {
      throw new Error('milvus flush refused');
    };
    const result = await withIngestWorker(deps, async (run) => (await run([fixture('plain.txt')])).result());
    expect(result.totals).toMatchObject({ ingested: 1, failed: 0 });
    expect(result.flush).toMatchObject({ status: 'failed', error: { type: 'SERVICE_UNAVAILABLE', message: 'flushing the leaves failed: milvus flush refused' } });
    expect(deps.leafStore.flushCalls).toBe(3); // FLUSH_LEAVES: three attempts
  }, 60_000);

  test('re-ingesting a batch replaces the chunks: the same ids, no duplicates', async () => {
    const deps = ingestDoubles();
    const files = ['guide.md', 'two-pages.pdf', 'notes.docx'].map(fixture);
    await withIngestWorker(deps, async (run) => {
      await (await run(files)).result();
      const before = { leaves: deps.leafStore.leaves.map((l) => l.chunk_id).sort(), parents: [...deps.parentStore.chunks.keys()].sort() };
      const again = await (await run(files)).result();
      expect(again.totals).toMatchObject({ ingested: 3, failed: 0 });
      expect({ leaves: deps.leafStore.leaves.map((l) => l.chunk_id).sort(), parents: [...deps.parentStore.chunks.keys()].sort() }).toEqual(before);
    });
  });

  test('progress query: files done of total and the files running now, while two run side by side', async () => {
    const deps = ingestDoubles();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    deps.embedder.beforeEmbed = () => gate;
    const files = ['guide.md', 'plain.txt', 'two-pages.pdf'].map(fixture);
    await withIngestWorker(deps, async (run) => {
      const handle = await run(files);
      let progress = await handle.query(ingestProgressQuery);
      for (let i = 0; i < 100 && progress.running.length < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        progress = await handle.query(ingestProgressQuery);
      }
      expect(progress).toMatchObject({ batchLabel: 'test batch', total: 3, done: 0, ingested: 0, failed: 0, results: [] });
      expect(progress.running).toEqual(files.slice(0, 2));
      release();
      const result = await handle.result();
      expect(await handle.query(ingestProgressQuery)).toMatchObject({ total: 3, done: 3, ingested: 3, running: [] });
      expect(result.totals.ingested).toBe(3);
    });
  });

  test('DESIGN §4b: two files with one name are two documents (ids by path); the same file listed twice is ingested once', async () => {
    const deps = ingestDoubles();
    for (const dir of ['a', 'b']) {
      mkdirSync(path.join(tmp, dir), { recursive: true });
      cpSync(fixture('guide.md'), path.join(tmp, dir, 'guide.md'));
    }
    const files = [path.join(tmp, 'a/guide.md'), path.join(tmp, 'b/guide.md'), path.join(tmp, 'a/guide.md')];
    const ids = files.map((file) => path.relative(tmp, file));
    const result = await withIngestWorker(deps, async (run) => (await run(files, ids)).result());
    expect(summary(result)).toEqual([
      ['guide.md', 'ingested', 1, 1, 1, null],
      ['guide.md', 'ingested', 1, 1, 1, null],
      ['guide.md', 'failed', 0, 0, 0, 'INVALID_INPUT'],
    ]);
    expect(result.files.map((file) => file.doc_id)).toEqual(['a/guide.md', 'b/guide.md', 'a/guide.md']);
    expect(result.files[2]?.error?.message).toBe(`guide.md: ${files[0]} is listed twice in this batch; it is ingested once`);
    expect([deps.leafStore.ids('a/guide.md'), deps.leafStore.ids('b/guide.md')]).toEqual([['a/guide.md::p0::l3::0'], ['b/guide.md::p0::l3::0']]);
  });

  test('a transient embedder failure is retried by Temporal and the file is ingested on the next attempt', async () => {
    const deps = ingestDoubles();
    deps.embedder.beforeEmbed = (call) => {
      if (call === 1) throw new Error('503 Service Unavailable');
    };
    const result = await withIngestWorker(deps, async (run) => (await run([fixture('plain.txt')])).result());
    expect(summary(result)).toEqual([['plain.txt', 'ingested', 1, 1, 1, null]]);
    expect(deps.embedder.batches).toHaveLength(1);
    expect(deps.leafStore.leaves).toHaveLength(1);
  }, 30_000);

  test('a worker stopped mid-file: the next worker finishes the batch; each leaf stored once', async () => {
    const deps = ingestDoubles();
    const file = path.join(tmp, 'restart.txt');
    writeFileSync(file, Array.from({ length: 2500 }, (_, i) => `第${i}句：关于检索的说明，编号${i}。${i % 40 === 39 ? '\n\n' : ''}`).join(''));
    // The 2nd batch hangs until the activity is cancelled, as the first worker's shutdown does.
    deps.embedder.beforeEmbed = (call) => (call === 2 ? Context.current().cancelled : undefined);
    const taskQueue = `test-${randomUUID()}`;
    const a = await ingestWorker(deps, taskQueue, 'worker-a');
    const runningA = a.run();
    const handle = await start(taskQueue, [file]);
    for (let i = 0; i < 100 && deps.embedder.batches.length < 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    a.shutdown();
    await runningA;
    expect(deps.leafStore.ids('restart.txt')).toHaveLength(50);
    const b = await ingestWorker(deps, taskQueue, 'worker-b');
    const result = await b.runUntil(handle.result());
    const [only] = result.files;
    expect(only).toMatchObject({ filename: 'restart.txt', status: 'ingested' });
    const ids = deps.leafStore.ids('restart.txt');
    expect(ids).toHaveLength(only!.l3);
    expect(new Set(ids).size).toBe(ids.length);
    expect(deps.parentStore.ids('restart.txt')).toHaveLength(only!.l1 + only!.l2);
    // Worker B resumed after the 50 leaves worker A inserted: the failed attempt's last heartbeat reached the server.
    expect(deps.embedder.batches.map((b) => b.length)).toEqual([50, only!.l3 - 50]);
  }, 30_000);

  test('input that is not a list of absolute paths fails the run with INVALID_INPUT', async () => {
    const deps = ingestDoubles();
    const error = await withIngestWorker(deps, async (run) => (await run(['relative/file.md'])).result().catch((e: unknown) => e));
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toMatchObject({ type: 'INVALID_INPUT' });
    expect((error as WorkflowFailedError).cause?.message).toMatch(/^invalid ingestWorkflow input: .*must be an absolute path/);
  });

  test('issue 44 §1: --meta and the front matter reach every leaf and the record; the folder is path', async () => {
    const deps = ingestDoubles();
    const file = path.join(tmp, 'atlas-reset.md');
    writeFileSync(file, '---\nproduct: atlas\ntags: [account]\n---\n# Reset\n\nOpen Settings, then Security.\n');
    const taskQueue = `test-${randomUUID()}`;
    const worker = await ingestWorker(deps, taskQueue);
    const result = await worker.runUntil(async () =>
      (await env.client.workflow.start(ingestWorkflow, { taskQueue, workflowId: `ingest-${randomUUID()}`, args: [{ files: [file], ids: ['guides/atlas-reset.md'], meta: { release: ['2024'], product: ['atlas-2'] } }] })).result(),
    );
    expect(result.totals.ingested).toBe(1);
    const meta = { path: ['guides'], product: ['atlas-2'], tags: ['account'], release: ['2024'] };
    expect(deps.leafStore.leaves.map((leaf) => leaf.meta)).toEqual(deps.leafStore.leaves.map(() => meta));
    expect([...deps.documents.records.values()].map((record) => record.meta)).toEqual([meta]);
    // The front matter is metadata, not evidence: the chunks hold the text after it.
    expect(deps.leafStore.leaves.map((leaf) => leaf.text).join('\n')).not.toContain('product: atlas');
  });
});
