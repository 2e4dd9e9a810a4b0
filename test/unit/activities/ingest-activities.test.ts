import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ActivityCancellationDetails, ApplicationFailure, CancelledFailure, type Logger } from '@temporalio/common';
import type { Info } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ingestActivities, type IngestDeps } from '../../../activities/ingest-activities';
import { buildHierarchy, countLevels } from '../../../core/ingest/hierarchy';
import type { IngestFileData, IngestFileInput, IngestHeartbeat } from '../../../core/ingest/ingest-io';
import { ingestDoubles } from '../../support/ingest-doubles';

/*
 * ingestFile against in-memory doubles of our store and embedder ports, in Temporal's mock activity context (so
 * heartbeats, attempts and cancellation are the SDK's own). "Consistent" is checked as: when an attempt ends, both
 * stores hold exactly the file's chunks, or neither holds any.
 */

const FIXTURES = path.join(__dirname, '../../fixtures/docs');
let tmp: string;
beforeAll(() => void (tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-ingest-'))));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A text with about 220 leaves (five embedding batches). */
const longText = (tag: string) => Array.from({ length: 4500 }, (_, i) => `${tag}第${i}句：关于检索的说明，编号${i}。${i % 40 === 39 ? '\n\n' : ''}`).join('');
const batchesOf = (n: number) => Array.from({ length: Math.ceil(n / 50) }, (_, i) => Math.min(50, n - 50 * i));
const write = (name: string, text: string) => (writeFileSync(path.join(tmp, name), text), path.join(tmp, name));
const expectedCounts = (file: string, text: string) => countLevels(buildHierarchy({ filename: path.basename(file), file_path: file, file_type: 'Text', pages: [{ page_number: 0, text: text.trim() }] }));

/** Keeps the SDK's and the activity's log lines (a failed attempt is logged at WARN) out of the test output. */
const logs: string[] = [];
const keep = (level: string) => (message: string) => void logs.push(`${level} ${message}`);
const logger: Logger = { log: (level, m) => keep(level)(m), trace: keep('TRACE'), debug: keep('DEBUG'), info: keep('INFO'), warn: keep('WARN'), error: keep('ERROR') };

async function attempt(deps: IngestDeps | undefined, file: string, info: Partial<Info> = {}, during?: (env: MockActivityEnvironment) => void, input: Partial<IngestFileInput> = {}) {
  const env = new MockActivityEnvironment(info, { logger });
  const beats: IngestHeartbeat[] = [];
  env.on('heartbeat', (details: IngestHeartbeat) => beats.push(details));
  during?.(env);
  try {
    // The document id is the base name here, so chunk ids read as the spec's (`<filename>::p…`).
    const data: IngestFileData = await env.run(ingestActivities(deps).ingestFile, { file, filename: path.basename(file), docId: path.basename(file), ...input } satisfies IngestFileInput);
    return { data, error: undefined, beats };
  } catch (error) {
    return { data: undefined, error, beats };
  }
}

const stored = (deps: ReturnType<typeof ingestDoubles>, filename: string) => ({ parents: deps.parentStore.ids(filename).length, leaves: deps.leafStore.ids(filename).length });

describe('ingestFile (spec §6.11 "Upload")', () => {
  test('a file: L1+L2 to the parent store, L3 with vectors to the leaf store, heartbeats in stage order', async () => {
    const deps = ingestDoubles();
    const { data, beats } = await attempt(deps, path.join(FIXTURES, 'guide.md'));
    expect(data).toEqual({ filename: 'guide.md', doc_id: 'guide.md', kb: 'memory_kb', file_type: 'Markdown', pages: 1, l1: 1, l2: 1, l3: 1, resumed_leaves: 0 });
    expect(deps.parentStore.ids('guide.md')).toEqual(['guide.md::p0::l1::0', 'guide.md::p0::l2::0']);
    expect(deps.leafStore.leaves.map((l) => [l.chunk_id, l.parent_chunk_id, l.root_chunk_id, l.chunk_idx, l.dense.length])).toEqual([
      ['guide.md::p0::l3::0', 'guide.md::p0::l2::0', 'guide.md::p0::l1::0', 2, 8],
    ]);
    expect([...new Set(beats.map((b) => b.stage))]).toEqual(['parsing', 'split', 'cleared', 'parents_written', 'embedding', 'inserted']);
    expect(beats.at(-1)).toMatchObject({ l1: 1, l2: 1, l3: 1, leaves_embedded: 1, leaves_inserted: 1 });
  });

  test('leaves are embedded and inserted 50 at a time (spec §6.10)', async () => {
    const deps = ingestDoubles();
    const text = longText('A');
    const file = write('long.txt', text);
    const counts = expectedCounts(file, text);
    const { data } = await attempt(deps, file);
    expect(data).toMatchObject({ ...counts, resumed_leaves: 0 });
    expect(counts.l3).toBeGreaterThan(100);
    expect(deps.embedder.batches.map((b) => b.length)).toEqual(batchesOf(counts.l3));
    expect(stored(deps, 'long.txt')).toEqual({ parents: counts.l1 + counts.l2, leaves: counts.l3 });
  });

  test('re-ingesting replaces the file\'s chunks in both stores: no duplicates, no ids of the old version', async () => {
    const deps = ingestDoubles();
    const file = write('again.txt', longText('B'));
    await attempt(deps, file);
    const first = stored(deps, 'again.txt');
    await attempt(deps, file);
    expect(stored(deps, 'again.txt')).toEqual(first);
    expect(new Set(deps.leafStore.ids('again.txt')).size).toBe(first.leaves);
    writeFileSync(file, '短了很多的新版本。');
    await attempt(deps, file);
    expect(deps.parentStore.ids('again.txt')).toEqual(['again.txt::p0::l1::0', 'again.txt::p0::l2::0']);
    expect(deps.leafStore.leaves.filter((l) => l.filename === 'again.txt').map((l) => l.text)).toEqual(['短了很多的新版本。']);
  });

  test.each([
    ['corrupt.pdf', 'CORRUPT_FILE', /^corrupt\.pdf: not a readable PDF/],
    // Issue 33 §6: the library's pointer to its own documentation is left out.
    ['corrupt.docx', 'CORRUPT_FILE', /^corrupt\.docx: not a readable \.docx \(Word zip package\): (?!.*https?:\/\/).+$/],
    ['blank.txt', 'EMPTY_DOCUMENT', /^blank\.txt: no text to index: the file is empty$/],
    ['notes.rtf', 'UNSUPPORTED_FILE', /^notes\.rtf: unsupported file type "\.rtf"/],
    ['missing.md', 'INVALID_INPUT', /^missing\.md: cannot read .*missing\.md: no such file$/],
  ])('%s fails with %s, not retried, and changes nothing in the stores', async (name, type, message) => {
    const deps = ingestDoubles();
    // An earlier good version under the same name must survive a bad upload (DESIGN §7).
    const good = write(name, 'good old version.');
    await deps.parentStore.replaceDocument(name, [{ chunk_id: `${name}::p0::l1::0`, text: 'old', filename: name, file_type: 'Text', file_path: name, page_number: 0, parent_chunk_id: '', root_chunk_id: `${name}::p0::l1::0`, chunk_level: 1, chunk_idx: 0 }]);
    void good;
    const { error } = await attempt(deps, path.join(FIXTURES, name));
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type, nonRetryable: true });
    expect((error as Error).message).toMatch(message);
    expect(deps.parentStore.ids(name)).toEqual([`${name}::p0::l1::0`]);
    expect(deps.embedder.batches).toEqual([]);
  });

  test('the embedder failing on the 2nd batch leaves neither store holding the file; retryable, naming the stage', async () => {
    const deps = ingestDoubles();
    await attempt(deps, path.join(FIXTURES, 'guide.md'));
    deps.embedder.beforeEmbed = (call) => {
      if (call === 3) throw new Error('connect ECONNREFUSED 127.0.0.1:8765');
    };
    const { error } = await attempt(deps, write('broken.txt', longText('C')));
    expect(error).toMatchObject({ type: 'SERVICE_UNAVAILABLE', nonRetryable: false });
    expect((error as Error).message).toBe('broken.txt: failed at stage "embedding": connect ECONNREFUSED 127.0.0.1:8765; its partial chunks were removed from both stores');
    expect(stored(deps, 'broken.txt')).toEqual({ parents: 0, leaves: 0 });
    expect(stored(deps, 'guide.md')).toEqual({ parents: 2, leaves: 1 });
  });

  test('when removing the partial chunks fails too, the message says so', async () => {
    const deps = ingestDoubles();
    deps.leafStore.beforeInsert = () => {
      throw new Error('milvus: collection is read-only');
    };
    deps.leafStore.beforeDelete = (call) => {
      if (call > 1) throw new Error('milvus unavailable');
    };
    const { error } = await attempt(deps, path.join(FIXTURES, 'plain.txt'));
    expect((error as Error).message).toBe(
      'plain.txt: failed at stage "embedding": milvus: collection is read-only; removing its partial chunks failed too (milvus unavailable): ingest the file again to replace them',
    );
  });

  test('a store error carrying a RagError code keeps it: an embedder of the wrong dimension is INVALID_CONFIG, not retried', async () => {
    const deps = ingestDoubles();
    deps.embedder.embedPassages = async (texts) => texts.map(() => [1, 0]);
    const { error } = await attempt(deps, path.join(FIXTURES, 'plain.txt'));
    expect(error).toMatchObject({ type: 'INVALID_CONFIG', nonRetryable: true });
    expect((error as Error).message).toMatch(/^plain\.txt: the embedder fake-embedder \(dim 8\) returned a vector of another dimension; .*; its partial chunks were removed/);
  });

  test('a worker shutdown mid-file keeps the partial chunks; the retry resumes after them: each leaf once, none embedded twice', async () => {
    const deps = ingestDoubles();
    const text = longText('D');
    const file = write('resume.txt', text);
    const counts = expectedCounts(file, text);
    const first = await attempt(deps, file, {}, (env) => {
      deps.embedder.beforeEmbed = (call) => {
        if (call === 2) env.cancel('WORKER_SHUTDOWN', new ActivityCancellationDetails({ workerShutdown: true }));
      };
    });
    expect(first.error).toBeInstanceOf(CancelledFailure);
    expect(stored(deps, 'resume.txt')).toEqual({ parents: counts.l1 + counts.l2, leaves: 100 });
    deps.embedder.beforeEmbed = () => undefined;
    const second = await attempt(deps, file, { attempt: 2, heartbeatDetails: first.beats.at(-1) });
    expect(second.data).toMatchObject({ ...counts, resumed_leaves: 100 });
    expect(logs).toContain(`INFO resume.txt: resuming after 100 of ${counts.l3} leaves inserted by attempt 1`);
    expect(deps.embedder.batches.map((b) => b.length)).toEqual(batchesOf(counts.l3)); // 2 batches, then the rest
    const fresh = ingestDoubles();
    await attempt(fresh, file);
    expect(deps.leafStore.leaves.map(({ chunk_id, chunk_idx, text: t }) => [chunk_id, chunk_idx, t])).toEqual(
      fresh.leafStore.leaves.map(({ chunk_id, chunk_idx, text: t }) => [chunk_id, chunk_idx, t]),
    );
  });

  test('a retry whose heartbeat does not match the stores, or whose file changed, starts over without duplicates', async () => {
    const deps = ingestDoubles();
    const file = write('restart.txt', longText('E'));
    const { beats } = await attempt(deps, file);
    const counts = stored(deps, 'restart.txt');
    // The heartbeat says 50 leaves, the store has them all (an insert landed after the last heartbeat): start over.
    const stale = { ...beats.at(-1)!, stage: 'embedding' as const, leaves_inserted: 50 };
    const retried = await attempt(deps, file, { attempt: 2, heartbeatDetails: stale });
    expect(retried.data).toMatchObject({ resumed_leaves: 0 });
    expect(stored(deps, 'restart.txt')).toEqual(counts);
    // Same counts, other bytes: the fingerprint differs, so nothing is resumed.
    const changed = await attempt(deps, file, { attempt: 2, heartbeatDetails: { ...beats.at(-1)!, fingerprint: 'other' } });
    expect(changed.data).toMatchObject({ resumed_leaves: 0 });
    expect(stored(deps, 'restart.txt')).toEqual(counts);
  });

  // INGEST_FILE's policy as the server hands it to each attempt (workflows/activity-options.ts).
  const retryPolicy = { maximumAttempts: 5, nonRetryableErrorTypes: ['INVALID_CONFIG', 'EMPTY_DOCUMENT'] };

  test('issue 14 §5: a retryable failure with attempts left keeps the inserted batches; the next attempt embeds only the rest', async () => {
    const deps = ingestDoubles();
    const text = longText('G');
    const file = write('kept.txt', text);
    const counts = expectedCounts(file, text);
    deps.embedder.beforeEmbed = (call) => {
      if (call === 3) throw new Error('embedding model "e5" at http://127.0.0.1:8765/v1 timed out: no answer within 290 s for 50 text(s)');
    };
    const first = await attempt(deps, file, { attempt: 1, retryPolicy });
    expect(first.error).toMatchObject({ type: 'SERVICE_UNAVAILABLE', nonRetryable: false });
    expect((first.error as Error).message).toMatch(/timed out: no answer within 290 s for 50 text\(s\); attempt 1 of 5 keeps the 100 leaves inserted so far, and the next attempt resumes after them$/);
    expect(stored(deps, 'kept.txt')).toEqual({ parents: counts.l1 + counts.l2, leaves: 100 });
    // The record the retry resumes from: what is stored, and no wait (nothing is being waited on).
    expect(first.beats.at(-1)).toMatchObject({ stage: 'embedding', leaves_inserted: 100 });
    expect(first.beats.at(-1)?.wait).toBeUndefined();
    // The failure's message travels in the heartbeat too (the server cuts a long failure of a pending activity).
    expect(first.beats.at(-1)?.last_failure).toBe((first.error as Error).message.replace(/; attempt 1 of 5 keeps.*$/, ''));
    deps.embedder.beforeEmbed = () => undefined;
    const second = await attempt(deps, file, { attempt: 2, retryPolicy, heartbeatDetails: first.beats.at(-1) });
    expect(second.data).toMatchObject({ ...counts, resumed_leaves: 100 });
    expect(second.beats[0]?.last_failure).toBe(first.beats.at(-1)?.last_failure);
    expect(second.beats.find((beat) => beat.resumed_leaves === 100)).toBeDefined();
    // Batches 1 and 2 once (attempt 1), then the rest (attempt 2): the failed 3rd call embedded nothing.
    expect(deps.embedder.batches.map((b) => b.length)).toEqual(batchesOf(counts.l3));
    expect(stored(deps, 'kept.txt')).toEqual({ parents: counts.l1 + counts.l2, leaves: counts.l3 });
  });

  test('issue 14 §5: requests smaller than a batch: what a failed batch had embedded is stored, and the retry completes the batch', async () => {
    const deps = ingestDoubles();
    deps.embedder.batchSize = 25;
    const text = longText('L');
    const file = write('halves.txt', text);
    const counts = expectedCounts(file, text);
    deps.embedder.beforeEmbed = (call) => {
      if (call === 4) throw new Error('embedding model "e5" at http://127.0.0.1:8765/v1 timed out: no answer within 250 s for 25 text(s)');
    };
    const first = await attempt(deps, file, { attempt: 1, retryPolicy });
    // Batch 1 (requests 1, 2), then the first half of batch 2 (request 3): stored; request 4 timed out.
    expect(stored(deps, 'halves.txt').leaves).toBe(75);
    expect((first.error as Error).message).toMatch(/keeps the 75 leaves inserted so far/);
    deps.embedder.beforeEmbed = () => undefined;
    const second = await attempt(deps, file, { attempt: 2, retryPolicy, heartbeatDetails: first.beats.at(-1) });
    expect(second.data).toMatchObject({ ...counts, resumed_leaves: 75 });
    // Every leaf embedded once: 25-text requests, the first of attempt 2 completing batch 2.
    const sizes = deps.embedder.batches.map((b) => b.length);
    expect(sizes.reduce((total, n) => total + n, 0)).toBe(counts.l3);
    expect(sizes.slice(0, 4)).toEqual([25, 25, 25, 25]);
    expect(deps.leafStore.leaves.map((leaf) => leaf.chunk_id)).toEqual([...new Set(deps.leafStore.leaves.map((leaf) => leaf.chunk_id))]);
    expect(stored(deps, 'halves.txt')).toEqual({ parents: counts.l1 + counts.l2, leaves: counts.l3 });
    // The waits name the request within the batch.
    expect(first.beats.find((beat) => beat.wait?.on === 'embedding' && beat.wait.batch === 2 && beat.wait.part === 2)?.wait).toMatchObject({ parts: 2, texts: 25 });
  });

  test('issue 14 §5: the last attempt, or an error the policy will not retry, removes the partial chunks', async () => {
    const deps = ingestDoubles();
    deps.embedder.beforeEmbed = (call) => {
      if (call === 2) throw new Error('connect ECONNREFUSED 127.0.0.1:8765');
    };
    const last = await attempt(deps, write('last.txt', longText('H')), { attempt: 5, retryPolicy });
    expect((last.error as Error).message).toMatch(/ECONNREFUSED 127\.0\.0\.1:8765; its partial chunks were removed from both stores$/);
    expect(stored(deps, 'last.txt')).toEqual({ parents: 0, leaves: 0 });
    deps.embedder.embedPassages = async (texts) => texts.map(() => [1, 0]); // INVALID_CONFIG: terminal
    const terminal = await attempt(deps, write('terminal.txt', longText('I')), { attempt: 1, retryPolicy });
    expect(terminal.error).toMatchObject({ type: 'INVALID_CONFIG', nonRetryable: true });
    expect(stored(deps, 'terminal.txt')).toEqual({ parents: 0, leaves: 0 });
  });

  test('issue 14 §5: a retried attempt that fails before writing (file gone) on its last attempt removes what the earlier one left', async () => {
    const deps = ingestDoubles();
    const file = write('vanished.txt', longText('J'));
    deps.embedder.beforeEmbed = (call) => {
      if (call === 2) throw new Error('503 Service Unavailable');
    };
    const first = await attempt(deps, file, { attempt: 4, retryPolicy });
    expect(stored(deps, 'vanished.txt').leaves).toBe(50);
    rmSync(file);
    const second = await attempt(deps, file, { attempt: 5, retryPolicy, heartbeatDetails: first.beats.at(-1) });
    expect(second.error).toMatchObject({ type: 'INVALID_INPUT', nonRetryable: true });
    expect((second.error as Error).message).toMatch(/no such file; its partial chunks were removed from both stores$/);
    expect(stored(deps, 'vanished.txt')).toEqual({ parents: 0, leaves: 0 });
  });

  test('issue 14 §5: each wait is in the heartbeat: clearing, parents, then per batch embedding and inserting (batch k+1 embeds while k inserts)', async () => {
    const deps = ingestDoubles();
    const text = longText('K');
    const file = write('waits.txt', text);
    const { l3 } = expectedCounts(file, text);
    const { beats } = await attempt(deps, file);
    const waits = beats.flatMap((beat) => (beat.wait ? [`${beat.wait.on}${beat.wait.batch ? ` ${beat.wait.batch}/${beat.wait.batches} (${beat.wait.texts})` : ''}`] : []));
    const batches = batchesOf(l3);
    const embedding = (i: number) => `embedding ${i + 1}/${batches.length} (${batches[i]})`;
    const inserting = (i: number) => `inserting ${i + 1}/${batches.length} (${batches[i]})`;
    expect([...new Set(waits)]).toEqual([
      'clearing',
      'writing_parents',
      embedding(0),
      ...batches.slice(1).flatMap((_, i) => [embedding(i + 1), inserting(i)]),
      inserting(batches.length - 1),
    ]);
    expect(beats.find((beat) => beat.wait?.on === 'embedding')?.wait).toEqual({ on: 'embedding', batch: 1, batches: batches.length, texts: 50, since: expect.any(Number) });
    expect(beats.at(-1)?.wait).toBeUndefined();
  });

  test('the batch cancelled mid-file (the workflow asked) removes the partial chunks', async () => {
    const deps = ingestDoubles();
    const file = write('cancel.txt', longText('F'));
    const { error } = await attempt(deps, file, {}, (env) => {
      deps.embedder.beforeEmbed = (call) => {
        if (call === 2) env.cancel('CANCELLED', new ActivityCancellationDetails({ cancelRequested: true }));
      };
    });
    expect(error).toBeInstanceOf(CancelledFailure);
    expect(stored(deps, 'cancel.txt')).toEqual({ parents: 0, leaves: 0 });
  });

  test('a worker without a knowledge store fails ingestFile with INVALID_CONFIG', async () => {
    const { error } = await attempt(undefined, path.join(FIXTURES, 'guide.md'));
    expect(error).toMatchObject({ type: 'INVALID_CONFIG', nonRetryable: true });
  });

  test('issue 17 §4: a re-ingested document keeps the vectors of its unchanged leaves; an edited one embeds only its new leaves; reembed embeds all', async () => {
    const deps = ingestDoubles();
    const text = longText('R');
    const file = write('reuse.txt', text);
    const counts = expectedCounts(file, text);
    const embeddedTexts = () => deps.embedder.batches.flat();
    const vectorsById = () => new Map(deps.leafStore.leaves.map((leaf) => [leaf.chunk_id, leaf.dense]));
    const readsVectors = (beats: IngestHeartbeat[]) => beats.some((beat) => beat.wait?.on === 'reading_vectors');
    const firstTime = await attempt(deps, file);
    expect(embeddedTexts()).toHaveLength(counts.l3);
    expect(deps.leafStore.leaves.every((leaf) => leaf.embedding_model === 'fake-embedder')).toBe(true);
    expect(readsVectors(firstTime.beats)).toBe(false); // a document never written has no vectors to read
    const before = vectorsById();

    // The same file again: every vector kept, nothing embedded, the same rows.
    deps.embedder.batches.length = 0;
    const again = await attempt(deps, file);
    expect(again.data).toMatchObject({ ...counts, resumed_leaves: 0, leaves_reused: counts.l3 });
    expect(embeddedTexts()).toEqual([]);
    expect(vectorsById()).toEqual(before);
    expect(again.beats.at(-1)).toMatchObject({ stage: 'inserted', leaves_reused: counts.l3 });
    expect(readsVectors(again.beats)).toBe(true);

    // An edited file: only the leaves whose text is new are embedded.
    const oldTexts = new Set(deps.leafStore.leaves.map((leaf) => leaf.text));
    const edited = text.replace('R第100句', 'R第100句（改）').replace('R第3000句', 'R第3000句（新增说明）');
    writeFileSync(file, edited);
    deps.embedder.batches.length = 0;
    const changed = await attempt(deps, file);
    const newLeaves = deps.leafStore.leaves.filter((leaf) => !oldTexts.has(leaf.text)).map((leaf) => leaf.text);
    expect(newLeaves.length).toBeGreaterThan(0);
    expect(embeddedTexts()).toEqual(newLeaves);
    expect(changed.data?.leaves_reused).toBe(changed.data!.l3 - newLeaves.length);
    expect(stored(deps, 'reuse.txt').leaves).toBe(changed.data!.l3);

    // reembed: every leaf again, none kept.
    deps.embedder.batches.length = 0;
    const forced = await attempt(deps, file, {}, undefined, { reembed: true });
    expect(embeddedTexts()).toHaveLength(changed.data!.l3);
    expect(forced.data?.leaves_reused).toBeUndefined();

    // Vectors another model computed are not reused.
    for (const leaf of deps.leafStore.leaves) leaf.embedding_model = 'another-model';
    deps.embedder.batches.length = 0;
    await attempt(deps, file);
    expect(embeddedTexts()).toHaveLength(changed.data!.l3);
  });

  test('issue 17 §4: the pipeline: batch 2 is embedded while batch 1 is inserted', async () => {
    const deps = ingestDoubles();
    let secondStarted: () => void = () => undefined;
    const started = new Promise<string>((resolve) => (secondStarted = () => resolve('batch 2 embedding')));
    deps.embedder.beforeEmbed = (call) => void (call === 2 && secondStarted());
    let overlap = '';
    let timer: NodeJS.Timeout | undefined;
    deps.leafStore.beforeInsert = async (call) => {
      if (call === 1) overlap = await Promise.race([started, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('no overlap within 2 s'), 2_000)))]);
      clearTimeout(timer);
    };
    const { data } = await attempt(deps, write('pipeline.txt', longText('P')));
    expect(overlap).toBe('batch 2 embedding');
    expect(stored(deps, 'pipeline.txt').leaves).toBe(data!.l3);
  });

  test('issue 17 §4: EMBEDDING_CONCURRENCY: at most n requests in flight; the rows are those of one request at a time', async () => {
    const text = longText('C');
    const run = async (concurrency: number) => {
      const deps = ingestDoubles();
      deps.embedder.batchSize = 10;
      deps.embedder.concurrency = concurrency;
      let inFlight = 0;
      let most = 0;
      deps.embedder.beforeEmbed = async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
      };
      await attempt(deps, write(`concurrent-${concurrency}.txt`, text));
      return { most, rows: deps.leafStore.leaves.map(({ chunk_idx, text: t, dense }) => [chunk_idx, t, dense]) };
    };
    const [one, three] = [await run(1), await run(3)];
    expect(one.most).toBe(1);
    expect(three.most).toBe(3);
    expect(three.rows).toEqual(one.rows);
  });

  test('issue 17 §4: a request failing with others in flight: the leaves up to the first missing vector are kept, and the retry embeds only the rest', async () => {
    const deps = ingestDoubles();
    deps.embedder.batchSize = 10;
    deps.embedder.concurrency = 3;
    const text = longText('F');
    const file = write('inflight.txt', text);
    const counts = expectedCounts(file, text);
    // Requests 1–5 are batch 1, 6–10 batch 2: request 7 fails while 8 and 9 are in flight.
    deps.embedder.beforeEmbed = async (call) => {
      await new Promise((resolve) => setTimeout(resolve, call === 7 ? 1 : 5));
      if (call === 7) throw new Error('embedding model "e5" at http://127.0.0.1:8765/v1 timed out: no answer within 290 s for 10 text(s)');
    };
    const first = await attempt(deps, file, { attempt: 1, retryPolicy });
    expect(stored(deps, 'inflight.txt').leaves).toBe(60);
    expect((first.error as Error).message).toMatch(/keeps the 60 leaves inserted so far/);
    expect(deps.embedder.batches.length).toBeLessThanOrEqual(8); // requests 1–6 and 8–9 at most; none after the failure
    deps.embedder.beforeEmbed = () => undefined;
    deps.embedder.batches.length = 0;
    const second = await attempt(deps, file, { attempt: 2, retryPolicy, heartbeatDetails: first.beats.at(-1) });
    expect(second.data).toMatchObject({ ...counts, resumed_leaves: 60 });
    expect(deps.embedder.batches.flat()).toHaveLength(counts.l3 - 60);
    expect(deps.leafStore.leaves.map((leaf) => leaf.chunk_id)).toEqual([...new Set(deps.leafStore.leaves.map((leaf) => leaf.chunk_id))]);
    expect(stored(deps, 'inflight.txt')).toEqual({ parents: counts.l1 + counts.l2, leaves: counts.l3 });
  });
});
