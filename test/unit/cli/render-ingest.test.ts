import { renderIngestAttempt, renderIngestProgress } from '../../../cli/render/ingest';
import type { IngestAttempt } from '../../../cli/ingest-attempts';
import type { IngestHeartbeat } from '../../../core/ingest/ingest-io';

/*
 * What `ragtime ingest` says a running file waits on (issue 14 §5), from the heartbeat and attempt the server holds
 * (cli/ingest-attempts.ts). The clock is the argument: "waiting 12 s" is now − wait.since.
 */

const NOW = 1_800_000_000_000;
const beat = (update: Partial<IngestHeartbeat> = {}): IngestHeartbeat => ({
  file: '/docs/guide.md', stage: 'embedding', fingerprint: 'f', pages_parsed: 1, pages_total: 1, l1: 3, l2: 7, l3: 307, leaves_embedded: 100, leaves_inserted: 100, ...update,
});
const attempt = (update: Partial<IngestAttempt> = {}): IngestAttempt => ({
  file: '/docs/guide.md', state: 'started', attempt: 1, maximumAttempts: 5, heartbeat: beat(), lastFailure: null, nextAttemptAt: null, ...update,
});
const TIMEOUT = 'guide.md: embedding model "e5" at http://127.0.0.1:8765/v1 timed out: no answer within 250 s for 25 text(s) (budget 2 × 2500 ms per text × 25 + 25 queued ahead; EMBEDDING_MS_PER_TEXT sets it); attempt 1 of 5 keeps the 100 leaves inserted so far, and the next attempt resumes after them';

test('each wait, named with its batch, how long so far, its budget and where', () => {
  const embedding = beat({ wait: { on: 'embedding', batch: 3, batches: 7, part: 2, parts: 2, texts: 25, target: 'http://127.0.0.1:8765/v1', since: NOW - 12_400, timeout_ms: 250_000 } });
  const inserting = beat({ wait: { on: 'inserting', batch: 3, batches: 7, texts: 50, target: 'embeddings_collection', since: NOW - 300 } });
  expect([
    renderIngestAttempt(attempt({ heartbeat: embedding }), NOW),
    renderIngestAttempt(attempt({ heartbeat: inserting }), NOW),
    renderIngestAttempt(attempt({ heartbeat: beat({ stage: 'cleared', wait: { on: 'writing_parents', texts: 10, since: NOW - 1_000 } }) }), NOW),
    renderIngestAttempt(attempt({ heartbeat: beat({ stage: 'split', wait: { on: 'clearing', since: NOW } }) }), NOW),
    renderIngestAttempt(attempt({ heartbeat: beat({ stage: 'split', wait: { on: 'reading_vectors', target: 'embeddings_collection', since: NOW - 2_000 } }) }), NOW),
    renderIngestAttempt(attempt({ heartbeat: beat({ stage: 'parsing', pages_parsed: 4, pages_total: 20 }) }), NOW),
    renderIngestAttempt(attempt({ heartbeat: null }), NOW),
  ]).toMatchInlineSnapshot(`
    [
      "embedding batch 3/7 (request 2/2: 25 texts), waiting 12 s (gives up after 250 s) on http://127.0.0.1:8765/v1",
      "inserting batch 3/7 (50 leaves) into Milvus (knowledge base embeddings_collection), waiting 0 s",
      "writing 10 parent chunks to the parent store, waiting 1 s",
      "clearing the document's previous chunks from both stores, waiting 0 s",
      "reading the vectors of the document's stored leaves (kept where a leaf is unchanged), waiting 2 s",
      "parsing page 4/20",
      "starting",
    ]
  `);
});

test('a retry: waiting out the backoff, then the attempt that resumed', () => {
  const backoff = attempt({ state: 'scheduled', attempt: 2, lastFailure: TIMEOUT, nextAttemptAt: NOW + 3_600 });
  const resumed = attempt({
    attempt: 2,
    lastFailure: TIMEOUT,
    heartbeat: beat({ resumed_leaves: 100, wait: { on: 'embedding', batch: 3, batches: 7, texts: 50, target: 'http://127.0.0.1:8765/v1', since: NOW - 2_000, timeout_ms: 250_000 } }),
  });
  const refused = attempt({ state: 'scheduled', attempt: 3, lastFailure: 'guide.md: Milvus insert on 127.0.0.1:19530 failed: 14 UNAVAILABLE: connection refused', nextAttemptAt: null });
  // The server cuts a long failure of a pending activity; the copy in the last heartbeat is read first.
  const cut = attempt({ state: 'scheduled', attempt: 2, lastFailure: 'Failure exceeds size limit.', heartbeat: beat({ last_failure: TIMEOUT }), nextAttemptAt: NOW + 3_600 });
  expect(renderIngestAttempt(cut, NOW)).toBe(renderIngestAttempt(backoff, NOW));
  expect([renderIngestAttempt(backoff, NOW), renderIngestAttempt(resumed, NOW), renderIngestAttempt(refused, NOW)]).toMatchInlineSnapshot(`
    [
      "retrying after embedding timeout (attempt 2 of 5, in 4 s); 100 of 307 leaves kept",
      "attempt 2 of 5 (after embedding timeout, resumed after 100 leaves): embedding batch 3/7 (50 texts), waiting 2 s (gives up after 250 s) on http://127.0.0.1:8765/v1",
      "retrying after Milvus insert on 127.0.0.1:19530 failed: 14 UNAVAILABLE: connection refused (attempt 3 of 5); 100 of 307 leaves kept",
    ]
  `);
});

test('the batch progress lists each running file with what it waits on', () => {
  const progress = { total: 3, done: 1, ingested: 1, failed: 0, running: ['/docs/guide.md', '/docs/other.md'], results: [] };
  const waiting = attempt({ heartbeat: beat({ wait: { on: 'embedding', batch: 1, batches: 2, texts: 50, since: NOW - 5_000 } }) });
  expect(renderIngestProgress(progress, [waiting], NOW)).toMatchInlineSnapshot(`
    "1/3 file(s) done (1 ingested, 0 failed)
      working on /docs/guide.md, /docs/other.md
        guide.md: embedding batch 1/2 (50 texts), waiting 5 s"
  `);
});
