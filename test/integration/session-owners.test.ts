import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { createSessionOwnerStore, type SqlSessionOwnerStore } from '../../activities/adapters/sql-session-owners';
import { assertReachable, services } from '../support/services';

/*
 * The session owners of the HTTP API's tenancy rule, on both backends: a SQLite temp file shared with the audit
 * store (as `ragtime serve` shares audit.sqlite), and PostgreSQL at TEST_DATABASE_URL (scripts/services.sh).
 */

// Same default as scripts/env.sh.
const TEST_DATABASE_URL = services.testDatabaseUrl;

let sqliteDir = '';
const backends = [
  {
    name: 'SQLite file',
    prepare: async () => {
      sqliteDir = mkdtempSync(join(tmpdir(), 'ragtime-owners-'));
    },
    location: () => ({ sqliteFile: join(sqliteDir, 'audit.sqlite') }),
    cleanup: () => rmSync(sqliteDir, { recursive: true, force: true }),
  },
  {
    name: 'PostgreSQL',
    prepare: () => assertReachable('PostgreSQL', new URL(TEST_DATABASE_URL).host),
    location: () => ({ databaseUrl: TEST_DATABASE_URL, sqliteFile: '/nonexistent/unused.db' }),
    cleanup: () => undefined,
  },
];

describe.each(backends)('session owners on $name', (backend) => {
  let store: SqlSessionOwnerStore;
  // Fresh ids per run, so reruns against one PostgreSQL database never meet.
  const session = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    await backend.prepare();
    store = createSessionOwnerStore(backend.location());
  });
  afterAll(async () => {
    await store?.close();
    backend.cleanup();
  });

  test('the first tenant to claim a session owns it; later claims learn the owner', async () => {
    const id = session('s');
    expect(await store.ownerOf(id)).toBeNull();
    expect(await store.claim(id, 'acme')).toBe('acme');
    expect(await store.claim(id, 'globex')).toBe('acme');
    expect(await store.claim(id, 'acme')).toBe('acme');
    expect(await store.ownerOf(id)).toBe('acme');
  });

  test('concurrent claims of a new session: exactly one tenant wins, and every claimer is told the same owner', async () => {
    const id = session('race');
    const tenants = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'acme', 'globex', 'initech'];
    const owners = await Promise.all(tenants.map((tenant) => store.claim(id, tenant)));
    expect(new Set(owners).size).toBe(1);
    expect(await store.ownerOf(id)).toBe(owners[0]);
  });

  test('ids that look like SQL are stored and found as data', async () => {
    for (const id of ["x'); DROP TABLE session_owner;--", 'a" OR "1"="1', '%_\\', '丹瑾']) {
      const unique = session(id);
      expect(await store.claim(unique, 'acme')).toBe('acme');
      expect(await store.ownerOf(unique)).toBe('acme');
    }
    expect(await store.ownerOf('%')).toBeNull(); // no LIKE anywhere: a wildcard finds nothing
  });

  test('migrations are idempotent and live beside the audit store in the same database', async () => {
    const second = createSessionOwnerStore(backend.location());
    const audit = createAuditStore({ ...backend.location(), includeContent: false });
    try {
      expect(await second.migrate()).toEqual([]);
      await audit.migrate();
      const id = session('shared');
      await second.claim(id, 'globex');
      expect(await store.ownerOf(id)).toBe('globex');
      expect((await audit.sessionTrace(id)).runs).toEqual([]);
    } finally {
      await second.close();
      await audit.close();
    }
  });
});

test('an unreachable database is SERVICE_UNAVAILABLE naming the store, without the password', async () => {
  const store = createSessionOwnerStore({ databaseUrl: 'postgres://postgres:secret@127.0.0.1:1/none', sqliteFile: '' });
  try {
    const error = await store.ownerOf('s').then(() => null, (thrown: unknown) => thrown as Error & { code?: string });
    expect(error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(error?.message).toMatch(/^session owner store migration failed \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none\)/);
  } finally {
    await store.close();
  }
});
