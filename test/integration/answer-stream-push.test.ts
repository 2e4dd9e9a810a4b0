import { randomUUID } from 'node:crypto';
import { createAnswerStreamStore, type SqlAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import { followAnswer } from '../../client/follow-answer';
import type { AnswerStreamMessage } from '../../core/schemas/answer-stream';
import type { RagOutcome } from '../../core/schemas/run-io';
import { assertReachable, services } from '../support/services';

/*
 * The side channel pushes on PostgreSQL (issue 36 §3): the writer's append NOTIFYs, a reader in another connection
 * (another process in production) is woken within milliseconds, and followAnswer shows text without waiting for its
 * poll. A SQLite file pushes over a local socket instead (answer-stream-local-push.test.ts); an in-memory one has none.
 */

const delta = (generation: string, seq: number, text: string) => ({ generation, attempt: 1, seq, kind: 'delta' as const, text });
const now = () => new Date().toISOString();

describe('answer stream push (PostgreSQL LISTEN/NOTIFY)', () => {
  let writer: SqlAnswerStreamStore;
  let reader: SqlAnswerStreamStore;
  beforeAll(async () => {
    await assertReachable('PostgreSQL', new URL(services.testDatabaseUrl).host);
    writer = createAnswerStreamStore({ databaseUrl: services.testDatabaseUrl, sqliteFile: ':memory:' });
    reader = createAnswerStreamStore({ databaseUrl: services.testDatabaseUrl, sqliteFile: ':memory:' });
    await writer.migrate();
  });
  afterAll(async () => {
    await writer?.close();
    await reader?.close();
  });

  test('an append wakes a subscriber of that run (with the generation written), not of another; unsubscribed, nothing', async () => {
    const run = `push-${randomUUID()}`;
    const other = `push-${randomUUID()}`;
    const woken: Array<{ generation: string; ms: number }> = [];
    const wokenOther: string[] = [];
    let started = 0;
    let arrived: () => void = () => undefined;
    const unsubscribe = reader.onAppend!(run, (generation) => {
      woken.push({ generation, ms: Date.now() - started });
      arrived();
    });
    reader.onAppend!(other, (generation) => wokenOther.push(generation));
    // The subscription's LISTEN is in place once a notification of a first append arrives; then time one.
    const first = new Promise<void>((resolve) => (arrived = resolve));
    for (let seq = 0; woken.length === 0 && seq < 50; seq += 1) {
      await writer.append(run, [delta('g-warmup', seq, '.')], now());
      await Promise.race([first, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    expect(woken.length).toBeGreaterThan(0);
    woken.length = 0;
    const timed = new Promise<void>((resolve) => (arrived = resolve));
    started = Date.now();
    await writer.append(run, [delta('g-answer', 0, '丹瑾')], now());
    await timed;
    console.log(`pushed after ${woken[0]?.ms} ms (append included)`);
    expect(woken[0]?.generation).toBe('g-answer');
    expect(woken[0]?.ms).toBeLessThan(1_000);
    expect(wokenOther).toEqual([]);
    unsubscribe();
    await writer.append(run, [delta('g-answer', 1, '是')], now());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(woken).toHaveLength(1);
  });

  test('followAnswer shows the text as it is written, without waiting out a 60 s poll, and asks the run once per generation, only then', async () => {
    const run = `push-follow-${randomUUID()}`;
    let queries = 0;
    const rag = {
      getAnswerStream: async () => {
        queries += 1;
        return { generation: 'g1', docs: [] };
      },
    };
    let settle: (outcome: RagOutcome) => void = () => undefined;
    const pending = new Promise<RagOutcome>((resolve) => (settle = resolve));
    const shown: Array<{ text: string; at: number }> = [];
    let reads = 0;
    const counted = { eventsOf: (...args: Parameters<typeof reader.eventsOf>) => ((reads += 1), reader.eventsOf(...args)), onAppend: reader.onAppend };
    const following = followAnswer(pending, rag, run, counted, (message: AnswerStreamMessage) => {
      if (message.type === 'delta') shown.push({ text: message.text, at: Date.now() });
    }, { intervalMs: 60_000 });
    // The first read (at once) asks the run for its generation; the LISTEN may still be connecting, so write until
    // the first text is shown, then time the next writes.
    let seq = 0;
    for (; shown.length === 0 && seq < 50; seq += 1) {
      await writer.append(run, [delta('g1', seq, '丹瑾')], now());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(shown.length).toBeGreaterThan(0);
    const before = shown.length;
    const queriesBefore = queries;
    const readsBefore = reads;
    const lags: number[] = [];
    // The writer's next events, in order (as the publisher numbers them).
    for (const last = seq + 5; seq < last; seq += 1) {
      const wrote = Date.now();
      await writer.append(run, [delta('g1', seq, `第${seq}段`)], now());
      while (shown.length === before + lags.length) await new Promise((resolve) => setTimeout(resolve, 2));
      lags.push((shown.at(-1)?.at ?? Number.NaN) - wrote);
    }
    console.log(`shown after ${lags.join(', ')} ms; ${queries - queriesBefore} answerStream queries for 5 writes of one generation`);
    expect(Math.max(...lags)).toBeLessThan(1_000);
    expect(queries - queriesBefore).toBe(0);
    // Issue 36 §2: each notification carried its events, which continued the text shown: no read of the store.
    expect(reads - readsBefore).toBe(0);
    settle({ status: 'completed', route: 'no_knowledge', answer: null, docs: [] } as unknown as RagOutcome);
    await following;
    // Issue 36 §2: over the whole follow, the run was asked once — for the generation's first push; not at the first
    // read (nothing written yet) nor at the last (the outcome's record follows).
    expect(queries).toBe(1);
  });

  test('an in-memory SQLite database has no push: its readers poll', () => {
    const sqlite = createAnswerStreamStore({ sqliteFile: ':memory:' });
    expect(sqlite.onAppend).toBeUndefined();
    return sqlite.close();
  });
});
