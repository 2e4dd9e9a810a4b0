import { IngestBatch, fileNameOf } from '../../../core/ingest/ingest-batch';
import { IngestWorkflowInput } from '../../../core/ingest/ingest-io';

const data = (l3: number) => ({ filename: 'x', file_type: 'Text', pages: 1, l1: 1, l2: 2, l3, resumed_leaves: 0 });

describe('ingestion batch state', () => {
  test('file name = the last path segment (what chunk ids and store deletes are keyed by)', () => {
    expect(fileNameOf('/docs/a/guide.md')).toBe('guide.md');
    expect(fileNameOf('/docs/a/')).toBe('a');
  });

  test('files are taken in order; results, progress and totals follow; time comes in as arguments', () => {
    const batch = new IngestBatch(['/a/one.md', '/a/two.pdf', '/a/three.txt'], 1_000, 'nightly');
    const first = batch.take(1_000);
    const second = batch.take(1_010);
    expect([first, second]).toEqual([
      { index: 0, file: '/a/one.md', filename: 'one.md', docId: null },
      { index: 1, file: '/a/two.pdf', filename: 'two.pdf', docId: null },
    ]);
    batch.fail(1, { type: 'CORRUPT_FILE', message: 'two.pdf: not a readable PDF' }, 1_050);
    expect(batch.progress()).toMatchObject({ batchLabel: 'nightly', total: 3, done: 1, ingested: 0, failed: 1, running: ['/a/one.md'] });
    batch.succeed(0, data(5), 1_100);
    expect(batch.take(1_100)).toEqual({ index: 2, file: '/a/three.txt', filename: 'three.txt', docId: null });
    batch.succeed(2, data(7), 1_200);
    expect(batch.take(1_200)).toBeNull();
    expect(batch.result(1_300)).toEqual({
      batchLabel: 'nightly',
      files: [
        { file: '/a/one.md', filename: 'one.md', status: 'ingested', l1: 1, l2: 2, l3: 5, duration_ms: 100 },
        { file: '/a/two.pdf', filename: 'two.pdf', status: 'failed', l1: 0, l2: 0, l3: 0, error: { type: 'CORRUPT_FILE', message: 'two.pdf: not a readable PDF' }, duration_ms: 40 },
        { file: '/a/three.txt', filename: 'three.txt', status: 'ingested', l1: 1, l2: 2, l3: 7, duration_ms: 100 },
      ],
      totals: { files: 3, ingested: 2, failed: 1, l1: 2, l2: 4, l3: 12, duration_ms: 300 },
    });
  });

  test('the flush after the batch: only when leaves were inserted; running in progress, then its outcome in the result', () => {
    const failedOnly = new IngestBatch(['/a/bad.pdf'], 0);
    failedOnly.take(0);
    failedOnly.fail(0, { type: 'CORRUPT_FILE', message: 'bad.pdf: not a readable PDF' }, 5);
    expect(failedOnly.insertedLeaves()).toBe(false);
    expect(failedOnly.result(5).flush).toBeUndefined();

    const batch = new IngestBatch(['/a/one.md', '/a/two.md'], 0);
    batch.take(0);
    batch.take(0);
    batch.succeed(0, data(0), 10);
    expect(batch.insertedLeaves()).toBe(false); // a file without leaves does not need one
    batch.succeed(1, data(3), 20);
    expect(batch.insertedLeaves()).toBe(true);
    batch.startFlush(20);
    expect(batch.progress().flush).toEqual({ status: 'running', duration_ms: 0 });
    batch.finishFlush(270);
    expect(batch.result(270).flush).toEqual({ status: 'flushed', duration_ms: 250 });
    batch.finishFlush(300, { type: 'SERVICE_UNAVAILABLE', message: 'flushing the leaves failed: down' });
    expect(batch.result(300).flush).toEqual({ status: 'failed', duration_ms: 280, error: { type: 'SERVICE_UNAVAILABLE', message: 'flushing the leaves failed: down' } });
  });

  test('DESIGN §4b: with document ids, two files of one base name are two documents; a second file with a taken id fails', () => {
    const batch = new IngestBatch(['/a/x.md', '/b/x.md', '/c/y.md'], 0, undefined, ['a/x.md', 'b/x.md', 'a/x.md'], 'docs_kb');
    expect([batch.take(0), batch.take(0)]).toEqual([
      { index: 0, file: '/a/x.md', filename: 'x.md', docId: 'a/x.md' },
      { index: 1, file: '/b/x.md', filename: 'x.md', docId: 'b/x.md' },
    ]);
    expect(batch.take(0)).toBeNull();
    batch.succeed(0, data(1), 1);
    batch.succeed(1, data(1), 1);
    const result = batch.result(2);
    expect(result.kb).toBe('docs_kb');
    expect(result.files.map((f) => [f.doc_id, f.status, f.error?.message])).toEqual([
      ['a/x.md', 'ingested', undefined],
      ['b/x.md', 'ingested', undefined],
      ['a/x.md', 'failed', 'y.md: /a/x.md in this batch has the same document id "a/x.md" (one would replace the other); give one of them another id'],
    ]);
  });

  test('workflow input: ids one per file and valid, the knowledge base a collection name', () => {
    expect(IngestWorkflowInput.safeParse({ files: ['/a.md', '/b.md'], ids: ['a.md', 'b.md'], kb: 'docs_kb', replace: true }).success).toBe(true);
    expect(IngestWorkflowInput.safeParse({ files: ['/a.md', '/b.md'], ids: ['a.md'] }).success).toBe(false);
    expect(IngestWorkflowInput.safeParse({ files: ['/a.md'], ids: ['a::b'] }).success).toBe(false);
    expect(IngestWorkflowInput.safeParse({ files: ['/a.md'], kb: 'no-hyphens' }).success).toBe(false);
  });

  test('a second file with a taken name fails when its turn comes; a result is settled once', () => {
    const batch = new IngestBatch(['/a/x.md', '/b/x.md'], 0);
    expect(batch.take(0)?.index).toBe(0);
    expect(batch.take(5)).toBeNull();
    batch.succeed(0, data(1), 9);
    batch.fail(0, { type: 'INTERNAL', message: 'late' }, 10);
    expect(batch.result(10).files.map((f) => [f.status, f.error?.type])).toEqual([
      ['ingested', undefined],
      ['failed', 'INVALID_INPUT'],
    ]);
  });

  test('workflow input: absolute paths only, at most 1000 files, concurrency 1–16', () => {
    expect(IngestWorkflowInput.safeParse({ files: ['/a.md'], concurrency: 2 }).success).toBe(true);
    expect(IngestWorkflowInput.safeParse({ files: ['a.md'] }).success).toBe(false);
    expect(IngestWorkflowInput.safeParse({ files: Array.from({ length: 1001 }, (_, i) => `/f${i}.md`) }).success).toBe(false);
    expect(IngestWorkflowInput.safeParse({ files: [], concurrency: 0 }).success).toBe(false);
  });
});
