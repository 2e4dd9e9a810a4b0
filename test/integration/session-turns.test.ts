import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { createSessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import type { SessionTurn } from '../../core/schemas/conversation';
import { assertReachable, services } from '../support/services';

/*
 * The completed turns of a conversation (issue 25 §1, docs/design/conversations.md) on both backends: a SQLite temp
 * file shared with the audit store (as `ragtime serve` shares audit.sqlite), and PostgreSQL at TEST_DATABASE_URL
 * (scripts/services.sh up postgres). PostgreSQL down fails the file; nothing is skipped.
 */

// Same default as scripts/env.sh.
const TEST_DATABASE_URL = services.testDatabaseUrl;
const AT = '2026-11-30T09:00:00.000Z';

let sqliteDir = '';
const sqliteFile = () => join(sqliteDir, 'nested', 'audit.sqlite');

type Backend = {
  name: string;
  prepare: () => Promise<void>;
  location: () => { databaseUrl?: string; sqliteFile: string };
  /** Runs one statement on the database behind the store's back (`?` placeholders on both). */
  exec: (statement: string, params: unknown[]) => Promise<void>;
  cleanup: () => void;
};

const backends: Backend[] = [
  {
    name: 'SQLite file',
    prepare: async () => {
      sqliteDir = mkdtempSync(join(tmpdir(), 'ragtime-turns-'));
    },
    location: () => ({ sqliteFile: sqliteFile() }),
    exec: async (statement, params) => {
      const sqlite = new Database(sqliteFile());
      try {
        sqlite.prepare(statement).run(...params);
      } finally {
        sqlite.close();
      }
    },
    cleanup: () => rmSync(sqliteDir, { recursive: true, force: true }),
  },
  {
    name: 'PostgreSQL',
    prepare: () => assertReachable('PostgreSQL', new URL(TEST_DATABASE_URL).host),
    location: () => ({ databaseUrl: TEST_DATABASE_URL, sqliteFile: '/nonexistent/unused.db' }),
    exec: async (statement, params) => {
      const client = new Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        let n = 0;
        await client.query(statement.replace(/\?/g, () => `$${(n += 1)}`), params);
      } finally {
        await client.end();
      }
    },
    cleanup: () => undefined,
  },
];

/** A completed turn as a run would record it. */
const turnOf = (workflowId: string, question = `question of ${workflowId}`): Omit<SessionTurn, 'turn'> => ({
  question,
  standaloneQuestion: `standalone ${question}`,
  answer: `answer to ${question}`,
  route: 'answer',
  workflowId,
});

describe.each(backends)('session turns on $name', (backend) => {
  let store: SqlSessionTurnStore;
  // Fresh ids per run, so reruns against one PostgreSQL database never meet.
  const session = (name = 's') => `${name}-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    await backend.prepare();
    store = createSessionTurnStore(backend.location());
  });
  afterAll(async () => {
    await store?.close();
    backend.cleanup();
  });

  test('appends are numbered 1, 2, 3 and read back oldest first; `last` keeps only the latest N', async () => {
    const id = session();
    const appended = [];
    for (const workflowId of ['run-a', 'run-b', 'run-c']) appended.push(await store.append('acme', id, turnOf(workflowId), AT));
    expect(appended.map((t) => t.turn)).toEqual([1, 2, 3]);
    expect(appended[1]).toEqual({ turn: 2, ...turnOf('run-b') });

    const turns = await store.turnsOf('acme', id);
    expect(turns).toEqual(appended);
    expect((await store.turnsOf('acme', id, { last: 2 })).map((t) => t.workflowId)).toEqual(['run-b', 'run-c']);
    expect(await store.turnsOf('acme', id, { last: 10 })).toEqual(appended);
    expect(await store.turnsOf('acme', id, { last: 0 })).toEqual([]);
    expect(await store.turnsOf('acme', session('never'))).toEqual([]);
  });

  test('idempotent by workflow id: a retried append returns the recorded turn unchanged and adds nothing', async () => {
    const id = session();
    const first = await store.append('acme', id, turnOf('run-a', 'what is X2?'), AT);
    await store.append('acme', id, turnOf('run-b'), AT);
    // A retry of run-a's activity, even one carrying other text, is the turn already recorded.
    const again = await store.append('acme', id, { ...turnOf('run-a', 'changed'), answer: null, route: null }, '2026-12-01T00:00:00.000Z');
    expect(again).toEqual(first);
    expect((await store.turnsOf('acme', id)).map((t) => [t.turn, t.workflowId])).toEqual([[1, 'run-a'], [2, 'run-b']]);
  });

  test('tenants never mix: one session id under two tenants is two conversations', async () => {
    const id = session();
    expect((await store.append('acme', id, turnOf('run-1', 'acme asks'), AT)).turn).toBe(1);
    expect((await store.append('globex', id, turnOf('run-1', 'globex asks'), AT)).turn).toBe(1);
    expect((await store.append('acme', id, turnOf('run-2', 'acme again'), AT)).turn).toBe(2);
    expect((await store.turnsOf('acme', id)).map((t) => t.question)).toEqual(['acme asks', 'acme again']);
    expect((await store.turnsOf('globex', id)).map((t) => t.question)).toEqual(['globex asks']);
    expect(await store.turnsOf('initech', id)).toEqual([]);
  });

  test('10 concurrent appends to one session, from two store instances, get turns 1..10 with no gap or duplicate', async () => {
    const id = session('race');
    const other = createSessionTurnStore(backend.location());
    try {
      // Migrated one after the other, and PostgreSQL's pools warmed, so that the appends themselves are what races.
      await store.migrate();
      await other.migrate();
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? store : other).turnsOf('acme', id)));
      const runs = Array.from({ length: 10 }, (_, i) => `run-${i}`);
      const appended = await Promise.all(runs.map((run, i) => (i % 2 === 0 ? store : other).append('acme', id, turnOf(run), AT)));
      expect(appended.map((t) => t.turn).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const stored = await store.turnsOf('acme', id);
      expect(stored.map((t) => t.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(new Set(stored.map((t) => t.workflowId))).toEqual(new Set(runs));
      // Each run got the number it was told it got.
      expect([...stored].sort((a, b) => a.workflowId.localeCompare(b.workflowId))).toEqual(
        [...appended].sort((a, b) => a.workflowId.localeCompare(b.workflowId)),
      );
    } finally {
      await other.close();
    }
  });

  test('a store opened on an existing database reads what another wrote, beside the audit store, migrating nothing again', async () => {
    const id = session();
    const writer = createSessionTurnStore(backend.location());
    const written = [await writer.append('acme', id, turnOf('run-a'), AT), await writer.append('acme', id, turnOf('run-b'), AT)];
    await writer.close();

    const reader = createSessionTurnStore(backend.location());
    const audit = createAuditStore({ ...backend.location(), includeContent: false });
    try {
      expect(await reader.migrate()).toEqual([]);
      await audit.migrate();
      expect(await reader.turnsOf('acme', id)).toEqual(written);
      expect((await reader.append('acme', id, turnOf('run-c'), AT)).turn).toBe(3);
      expect((await audit.sessionTrace(id)).runs).toEqual([]);
    } finally {
      await reader.close();
      await audit.close();
    }
  });

  test('a turn without an answer or a route (no knowledge, a failure) round-trips its nulls', async () => {
    const id = session();
    const unanswered = { ...turnOf('run-a'), answer: null, route: null };
    expect(await store.append('acme', id, unanswered, AT)).toEqual({ turn: 1, ...unanswered });
    const clarify = { ...turnOf('run-b'), answer: null, route: 'clarify' as const };
    await store.append('acme', id, clarify, AT);
    expect(await store.turnsOf('acme', id)).toEqual([{ turn: 1, ...unanswered }, { turn: 2, ...clarify }]);
  });

  test('a stored row that no longer parses as a SessionTurn is INTERNAL, naming the row', async () => {
    const id = session();
    await store.append('acme', id, turnOf('run-a'), AT);
    await backend.exec(
      'INSERT INTO session_turn (tenant, session_id, turn, question, standalone_question, answer, route, workflow_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ['acme', id, 2, 'q', 'q', null, 'teleport', 'run-b', AT],
    );
    const error = await store.turnsOf('acme', id).then(() => null, (thrown: unknown) => thrown as Error & { code?: string });
    expect(error?.code).toBe('INTERNAL');
    expect(error?.message).toContain(`session_turn ["acme","${id}",2]: ✖ Invalid option`);
    expect(error?.message).toContain('→ at route');
  });
});

/*
 * The conflict path of append, made deterministic: a rival transaction holds an uncommitted turn 2, so the store's
 * INSERT computes 2 as well and waits on the unique key. PostgreSQL only: on SQLite the INSERT takes the write lock
 * before it reads the latest turn, so it can never compute a number another writer holds (and in one process,
 * better-sqlite3 would block the event loop that has to commit the rival).
 */
describe('session turns on PostgreSQL, against a rival writer', () => {
  let store: SqlSessionTurnStore;
  let rival: Client;
  // pg_stat_activity is read from its own connection: inside the rival's transaction it would be a frozen snapshot.
  let observer: Client;
  beforeAll(async () => {
    await assertReachable('PostgreSQL', new URL(TEST_DATABASE_URL).host);
    store = createSessionTurnStore({ databaseUrl: TEST_DATABASE_URL, sqliteFile: '/nonexistent/unused.db' });
    await store.migrate();
    rival = new Client({ connectionString: TEST_DATABASE_URL });
    await rival.connect();
    observer = new Client({ connectionString: TEST_DATABASE_URL });
    await observer.connect();
  });
  afterAll(async () => {
    await observer?.end();
    await rival?.end();
    await store?.close();
  });

  /**
   * Starts an append while the rival holds turn 2 uncommitted; resolves once the append waits on the rival's row. The
   * append comes back wrapped: an async function returning the bare promise would wait for it, i.e. for the rival.
   */
  async function appendBehindRival(id: string): Promise<{ appending: Promise<SessionTurn> }> {
    await rival.query('BEGIN');
    await rival.query(
      'INSERT INTO session_turn (tenant, session_id, turn, question, standalone_question, answer, route, workflow_id, created_at) VALUES ($1, $2, 2, $3, $3, NULL, NULL, $4, $5)',
      ['acme', id, 'rival question', 'rival-run', AT],
    );
    const appending = store.append('acme', id, turnOf('run-b'), AT);
    appending.catch(() => undefined); // awaited by the test; this only keeps an early failure from going unhandled
    for (let waited = 0; ; waited += 20) {
      const blocked = await observer.query(
        `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE 'insert into "session_turn"%'`,
      );
      if ((blocked.rowCount ?? 0) > 0) return { appending };
      if (waited > 5_000) throw new Error('the append never waited on the rival\'s uncommitted turn 2');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  test('the rival commits: the append gives way and takes the next number', async () => {
    const id = `rival-${randomUUID().slice(0, 8)}`;
    await store.append('acme', id, turnOf('run-a'), AT);
    const { appending } = await appendBehindRival(id);
    await rival.query('COMMIT');
    expect((await appending).turn).toBe(3);
    expect((await store.turnsOf('acme', id)).map((t) => [t.turn, t.workflowId])).toEqual([[1, 'run-a'], [2, 'rival-run'], [3, 'run-b']]);
  });

  test('the rival rolls back: the append takes the number the rival gave up', async () => {
    const id = `rival-${randomUUID().slice(0, 8)}`;
    await store.append('acme', id, turnOf('run-a'), AT);
    const { appending } = await appendBehindRival(id);
    await rival.query('ROLLBACK');
    expect((await appending).turn).toBe(2);
    expect((await store.turnsOf('acme', id)).map((t) => [t.turn, t.workflowId])).toEqual([[1, 'run-a'], [2, 'run-b']]);
  });
});

test('bad arguments are INVALID_INPUT before the database is touched', async () => {
  // Port 1 refuses connections: reaching the database would be SERVICE_UNAVAILABLE, not INVALID_INPUT.
  const store = createSessionTurnStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', sqliteFile: '' });
  try {
    const failure = (promise: Promise<unknown>) => promise.then(() => null, (thrown: unknown) => thrown as Error & { code?: string });
    const badTime = await failure(store.append('acme', 's', turnOf('run-a'), 'yesterday'));
    expect(badTime?.code).toBe('INVALID_INPUT');
    expect(badTime?.message).toMatchInlineSnapshot(`"session turn store append: ✖ Invalid ISO datetime → at at"`);
    const badRoute = await failure(store.append('acme', 's', { ...turnOf('run-a'), route: 'teleport' as SessionTurn['route'] }, AT));
    expect(badRoute?.code).toBe('INVALID_INPUT');
    const badLast = await failure(store.turnsOf('acme', 's', { last: -1 }));
    expect(badLast?.message).toMatchInlineSnapshot(`"session turn store turnsOf: ✖ Too small: expected number to be >=0 → at last"`);
    expect((await failure(store.turnsOf('acme', '')))?.code).toBe('INVALID_INPUT');
  } finally {
    await store.close();
  }
});

test('an unreachable database is SERVICE_UNAVAILABLE naming the store, without the password', async () => {
  const store = createSessionTurnStore({ databaseUrl: 'postgres://postgres:secret@127.0.0.1:1/none', sqliteFile: '' });
  try {
    const error = await store.turnsOf('acme', 's').then(() => null, (thrown: unknown) => thrown as Error & { code?: string });
    expect(error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(error?.message).toMatch(/^session turn store migration failed \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none\)/);
  } finally {
    await store.close();
  }
});
