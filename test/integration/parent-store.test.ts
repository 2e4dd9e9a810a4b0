/**
 * The parent-chunk store (spec §6.8) on both backends: a SQLite temp file, and PostgreSQL at TEST_DATABASE_URL
 * (started by `scripts/services.sh up postgres`, which `make test` does). An unreachable PostgreSQL fails the suite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createParentStore, type SqlParentStore } from '../../activities/adapters/sql-parent-store';
import type { HierarchyChunk } from '../../activities/ports';
import { RagError } from '../../core/errors';
import { assertReachable, services } from '../support/services';

// Same default as scripts/env.sh.
const TEST_DATABASE_URL = services.testDatabaseUrl;
const RUN = `${Date.now()}_${process.pid}`;

/** The L1 and L2 chunks of one page, ids as spec §6.11 builds them. */
function chunksOf(filename: string, count: number, textPrefix = 'text'): HierarchyChunk[] {
  return Array.from({ length: count }, (_, n) => {
    const level = n % 4 === 0 ? 1 : 2;
    const root = `${filename}::p0::l1::${Math.floor(n / 4)}`;
    return {
      chunk_id: level === 1 ? root : `${filename}::p0::l2::${n}`,
      text: `${textPrefix} ${n} 中文段落「引号」'quote' "double" \\ backslash`,
      filename,
      file_type: 'text/markdown',
      file_path: `/docs/${filename}`,
      page_number: 0,
      parent_chunk_id: level === 1 ? '' : root,
      root_chunk_id: root,
      chunk_level: level,
      chunk_idx: n,
    };
  });
}

type Backend = { name: string; open: () => SqlParentStore; prepare: () => Promise<void>; cleanup: () => void };

let sqliteDir = '';
const backends: Backend[] = [
  {
    name: 'SQLite file',
    prepare: async () => {
      sqliteDir = mkdtempSync(join(tmpdir(), 'ragtime-parent-store-'));
    },
    open: () => createParentStore({ sqliteFile: join(sqliteDir, 'nested', 'parents.db') }),
    cleanup: () => rmSync(sqliteDir, { recursive: true, force: true }),
  },
  {
    name: 'PostgreSQL',
    prepare: () => assertReachable('PostgreSQL', new URL(TEST_DATABASE_URL).host),
    open: () => createParentStore({ databaseUrl: TEST_DATABASE_URL, sqliteFile: '/nonexistent/unused.db' }),
    cleanup: () => undefined,
  },
];

describe.each(backends)('parent store on $name', (backend) => {
  let store: SqlParentStore;
  // Each run uses its own filenames, so reruns against one PostgreSQL database never see each other's rows.
  const file = (name: string) => `${RUN}_${name}`;

  beforeAll(async () => {
    await backend.prepare();
    store = backend.open();
  });

  afterAll(async () => {
    if (store) {
      for (const name of ['a.md', 'b.md', 'big.md', 'gone.md']) await store.deleteFile(file(name));
      await store.close();
    }
    backend.cleanup();
  });

  test('migrations run once: the first open creates the table, a second open applies nothing', async () => {
    await store.migrate();
    const again = backend.open();
    try {
      expect(await again.migrate()).toEqual([]);
      expect(await again.countByFilename(file('a.md'))).toBe(0);
    } finally {
      await again.close();
    }
  });

  test('replaceFile replaces all chunks of a file: no duplicates, no orphans, other files untouched', async () => {
    await store.replaceFile(file('a.md'), chunksOf(file('a.md'), 10, 'first'));
    await store.replaceFile(file('b.md'), chunksOf(file('b.md'), 3));
    expect(await store.countByFilename(file('a.md'))).toBe(10);

    // The second version has fewer chunks: the ids 6..9 of the first must be gone (no orphans).
    await store.replaceFile(file('a.md'), chunksOf(file('a.md'), 6, 'second'));
    expect(await store.countByFilename(file('a.md'))).toBe(6);
    expect(await store.countByFilename(file('b.md'))).toBe(3);
    const ids = chunksOf(file('a.md'), 10).map((c) => c.chunk_id);
    const found = await store.getByIds(ids);
    expect(found.map((c) => c.chunk_id)).toEqual(ids.slice(0, 6));
    expect(found.every((c) => c.text.startsWith('second '))).toBe(true);
    expect(found[1]).toEqual(chunksOf(file('a.md'), 6, 'second')[1]);
  });

  test('replaceFile is one transaction: a failing insert leaves the previous version in place', async () => {
    const bad = chunksOf(file('a.md'), 4);
    bad[3] = { ...bad[3]!, text: null as unknown as string }; // NOT NULL violation on the last row
    await expect(store.replaceFile(file('a.md'), bad)).rejects.toThrow(RagError);
    expect(await store.countByFilename(file('a.md'))).toBe(6);
  });

  test('replaceFile refuses chunks of another file or duplicate ids, before touching the database', async () => {
    const other = chunksOf(file('b.md'), 1);
    await expect(store.replaceFile(file('a.md'), other)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const twice = [...chunksOf(file('a.md'), 1), ...chunksOf(file('a.md'), 1)];
    await expect(store.replaceFile(file('a.md'), twice)).rejects.toThrow(/appears twice/);
    expect(await store.countByFilename(file('a.md'))).toBe(6);
  });

  test('getByIds returns the requested order, skips missing ids, and handles 2,000 ids', async () => {
    const big = chunksOf(file('big.md'), 2_000);
    await store.replaceFile(file('big.md'), big);
    const wanted = [big[1_999]!.chunk_id, 'missing-1', big[0]!.chunk_id, file('b.md') + '::p0::l1::0', 'missing-2'];
    expect((await store.getByIds(wanted)).map((c) => c.chunk_id)).toEqual([wanted[0], wanted[2], wanted[3]]);

    const reversed = big.map((c) => c.chunk_id).reverse();
    const started = Date.now();
    const all = await store.getByIds([...reversed, 'missing-3']);
    expect(all.map((c) => c.chunk_id)).toEqual(reversed);
    expect(all[0]).toEqual(big[1_999]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await store.getByIds([])).toEqual([]);
  });

  test('deleteFile removes one file only', async () => {
    await store.replaceFile(file('gone.md'), chunksOf(file('gone.md'), 5));
    await store.deleteFile(file('gone.md'));
    expect(await store.countByFilename(file('gone.md'))).toBe(0);
    expect(await store.countByFilename(file('b.md'))).toBe(3);
    await store.deleteFile(file('never-existed.md')); // no error
  });
});

test('PostgreSQL: the table has the columns of spec §6.8 and an index on filename', async () => {
  const store = createParentStore({ databaseUrl: TEST_DATABASE_URL, sqliteFile: '' });
  await store.migrate().finally(() => store.close());
  const client = new Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const columns = await client.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'parent_chunks' ORDER BY ordinal_position",
    );
    expect(columns.rows.map((r: { column_name: string }) => r.column_name)).toEqual([
      'chunk_id',
      'text',
      'filename',
      'file_type',
      'file_path',
      'page_number',
      'parent_chunk_id',
      'root_chunk_id',
      'chunk_level',
      'chunk_idx',
      'updated_at',
    ]);
    const indexes = await client.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'parent_chunks'");
    expect(indexes.rows.map((r: { indexdef: string }) => r.indexdef).join('\n')).toMatch(/\(filename\)/);
  } finally {
    await client.end();
  }
});

test('an unreachable PostgreSQL is a SERVICE_UNAVAILABLE RagError naming the database, not a crash', async () => {
  const store = createParentStore({ databaseUrl: 'postgres://postgres:secret@127.0.0.1:1/none', sqliteFile: '' });
  try {
    const error = await store.getByIds(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RagError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/^parent store migration failed \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none\)/);
    expect((error as Error).message).not.toMatch(/secret/);
  } finally {
    await store.close();
  }
});
