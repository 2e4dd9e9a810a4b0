/**
 * The parent-chunk store (spec §6.8) and the document registry (DESIGN §4b) on both backends: a SQLite temp file,
 * and PostgreSQL at TEST_DATABASE_URL (started by `scripts/services.sh up postgres`, which `make test` does). An
 * unreachable PostgreSQL fails the suite. Rows are keyed by knowledge base: one knowledge base never sees another's.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { Client, Pool } from 'pg';
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, parentChunkMigrations } from '../../activities/adapters/sql/parent-chunks-schema';
import { createParentStore, type SqlParentStore } from '../../activities/adapters/sql-parent-store';
import type { HierarchyChunk } from '../../activities/ports';
import { RagError } from '../../core/errors';
import type { DocumentRecord } from '../../core/knowledge/knowledge-base';
import { assertReachable, services } from '../support/services';

const TEST_DATABASE_URL = services.testDatabaseUrl;
const RUN = `${Date.now()}_${process.pid}`;
const LEGACY_FIXTURE = join(__dirname, '../fixtures/legacy-data/ragtime.sqlite');

/** The L1 and L2 chunks of one page of document `docId` (base name `filename`), ids as spec §6.11 builds them. */
function chunksOf(docId: string, count: number, textPrefix = 'text', filename = docId.slice(docId.lastIndexOf('/') + 1)): HierarchyChunk[] {
  return Array.from({ length: count }, (_, n) => {
    const level = n % 4 === 0 ? 1 : 2;
    const root = `${docId}::p0::l1::${Math.floor(n / 4)}`;
    return {
      chunk_id: level === 1 ? root : `${docId}::p0::l2::${n}`,
      text: `${textPrefix} ${n} 中文段落「引号」'quote' "double" \\ backslash`,
      filename,
      file_type: 'text/markdown',
      file_path: docId,
      page_number: 0,
      parent_chunk_id: level === 1 ? '' : root,
      root_chunk_id: root,
      chunk_level: level,
      chunk_idx: n,
    };
  });
}

const record = (kb: string, docId: string, extra: Partial<DocumentRecord> = {}): DocumentRecord => ({
  kb,
  doc_id: docId,
  filename: docId.slice(docId.lastIndexOf('/') + 1),
  source: `/src/${docId}`,
  file_type: 'Markdown',
  pages: 1,
  l1: 1,
  l2: 2,
  l3: 3,
  bytes: 100,
  content_hash: 'abc',
  ingested_at: '2026-12-01T00:00:00.000Z',
  ...extra,
});

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
  let sql: SqlParentStore;
  // Each run uses its own knowledge bases, so reruns against one PostgreSQL database never see each other's rows.
  const KB = `kb_a_${RUN}`;
  const OTHER = `kb_b_${RUN}`;
  const store = () => sql.forKb(KB);

  beforeAll(async () => {
    await backend.prepare();
    sql = backend.open();
  });

  afterAll(async () => {
    if (sql) {
      await sql.documents.dropKb(KB);
      await sql.documents.dropKb(OTHER);
      await sql.close();
    }
    backend.cleanup();
  });

  test('migrations run once: the first open creates the tables, a second open applies nothing', async () => {
    await sql.migrate();
    const again = backend.open();
    try {
      expect(await again.migrate()).toEqual([]);
      expect(await again.forKb(KB).countByDocument('a.md')).toBe(0);
    } finally {
      await again.close();
    }
  });

  test('replaceDocument replaces all chunks of a document: no duplicates, no orphans, other documents untouched', async () => {
    await store().replaceDocument('docs/a.md', chunksOf('docs/a.md', 10, 'first'));
    await store().replaceDocument('docs/b.md', chunksOf('docs/b.md', 3));
    expect(await store().countByDocument('docs/a.md')).toBe(10);

    // The second version has fewer chunks: the ids 6..9 of the first must be gone (no orphans).
    await store().replaceDocument('docs/a.md', chunksOf('docs/a.md', 6, 'second'));
    expect(await store().countByDocument('docs/a.md')).toBe(6);
    expect(await store().countByDocument('docs/b.md')).toBe(3);
    const ids = chunksOf('docs/a.md', 10).map((c) => c.chunk_id);
    const found = await store().getByIds(ids);
    expect(found.map((c) => c.chunk_id)).toEqual(ids.slice(0, 6));
    expect(found.every((c) => c.text.startsWith('second '))).toBe(true);
    expect(found[1]).toEqual(chunksOf('docs/a.md', 6, 'second')[1]);
  });

  test('two documents with one base name are two documents', async () => {
    await store().replaceDocument('x/README.md', chunksOf('x/README.md', 2, 'zod'));
    await store().replaceDocument('y/README.md', chunksOf('y/README.md', 2, 'openai'));
    expect(await store().countByDocument('x/README.md')).toBe(2);
    expect((await store().getByIds(['x/README.md::p0::l1::0', 'y/README.md::p0::l1::0'])).map((c) => [c.filename, c.text.split(' ')[0]])).toEqual([
      ['README.md', 'zod'],
      ['README.md', 'openai'],
    ]);
  });

  test('another knowledge base with the same document ids sees only its own rows', async () => {
    await sql.forKb(OTHER).replaceDocument('docs/a.md', chunksOf('docs/a.md', 2, 'other-kb'));
    expect(await sql.forKb(OTHER).countByDocument('docs/a.md')).toBe(2);
    expect(await store().countByDocument('docs/a.md')).toBe(6);
    const [mine] = await store().getByIds(['docs/a.md::p0::l1::0']);
    const [theirs] = await sql.forKb(OTHER).getByIds(['docs/a.md::p0::l1::0']);
    expect([mine?.text.split(' ')[0], theirs?.text.split(' ')[0]]).toEqual(['second', 'other-kb']);
    await sql.forKb(OTHER).deleteDocument('docs/a.md');
    expect(await store().countByDocument('docs/a.md')).toBe(6);
  });

  test('replaceDocument is one transaction: a failing insert leaves the previous version in place', async () => {
    const bad = chunksOf('docs/a.md', 4);
    bad[3] = { ...bad[3]!, text: null as unknown as string }; // NOT NULL violation on the last row
    await expect(store().replaceDocument('docs/a.md', bad)).rejects.toThrow(RagError);
    expect(await store().countByDocument('docs/a.md')).toBe(6);
  });

  test('replaceDocument refuses chunks of another document or duplicate ids, before touching the database', async () => {
    const other = chunksOf('docs/b.md', 1);
    await expect(store().replaceDocument('docs/a.md', other)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const twice = [...chunksOf('docs/a.md', 1), ...chunksOf('docs/a.md', 1)];
    await expect(store().replaceDocument('docs/a.md', twice)).rejects.toThrow(/appears twice/);
    expect(await store().countByDocument('docs/a.md')).toBe(6);
  });

  test('getByIds returns the requested order, skips missing ids, and handles 2,000 ids', async () => {
    const big = chunksOf('big.md', 2_000);
    await store().replaceDocument('big.md', big);
    const wanted = [big[1_999]!.chunk_id, 'missing-1', big[0]!.chunk_id, 'docs/b.md::p0::l1::0', 'missing-2'];
    expect((await store().getByIds(wanted)).map((c) => c.chunk_id)).toEqual([wanted[0], wanted[2], wanted[3]]);

    const reversed = big.map((c) => c.chunk_id).reverse();
    const started = Date.now();
    const all = await store().getByIds([...reversed, 'missing-3']);
    expect(all.map((c) => c.chunk_id)).toEqual(reversed);
    expect(all[0]).toEqual(big[1_999]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await store().getByIds([])).toEqual([]);
  });

  test('deleteDocument removes one document only', async () => {
    await store().replaceDocument('gone.md', chunksOf('gone.md', 5));
    await store().deleteDocument('gone.md');
    expect(await store().countByDocument('gone.md')).toBe(0);
    expect(await store().countByDocument('docs/b.md')).toBe(3);
    await store().deleteDocument('never-existed.md'); // no error
  });

  test('the document registry: put replaces, get, findBySource, list by knowledge base, remove, dropKb', async () => {
    await sql.documents.put(record(KB, 'docs/a.md'));
    await sql.documents.put(record(KB, 'docs/a.md', { l3: 7 }));
    await sql.documents.put(record(KB, 'docs/b.md', { source: '/src/docs/a.md' }));
    await sql.documents.put(record(OTHER, 'docs/a.md', { bytes: 5 }));
    expect(await sql.documents.get(KB, 'docs/a.md')).toEqual(record(KB, 'docs/a.md', { l3: 7 }));
    expect(await sql.documents.get(KB, 'missing')).toBeNull();
    expect((await sql.documents.findBySource(KB, '/src/docs/a.md')).map((r) => r.doc_id)).toEqual(['docs/a.md', 'docs/b.md']);
    expect((await sql.documents.list(KB)).map((r) => r.doc_id)).toEqual(['docs/a.md', 'docs/b.md']);
    expect((await sql.documents.list(OTHER)).map((r) => [r.doc_id, r.bytes])).toEqual([['docs/a.md', 5]]);
    expect(await sql.documents.knowledgeBases()).toEqual(expect.arrayContaining([KB, OTHER]));
    await sql.documents.remove(KB, 'docs/b.md');
    expect((await sql.documents.list(KB)).map((r) => r.doc_id)).toEqual(['docs/a.md']);
    await sql.forKb(OTHER).replaceDocument('docs/c.md', chunksOf('docs/c.md', 2));
    await sql.documents.dropKb(OTHER);
    expect(await sql.documents.list(OTHER)).toEqual([]);
    expect(await sql.forKb(OTHER).countByDocument('docs/c.md')).toBe(0);
    expect(await store().countByDocument('docs/b.md')).toBe(3);
  });
});

/**
 * Data written before knowledge bases (test/fixtures/legacy-data: parent rows by chunk id and file name): the
 * migration keeps every row, under no knowledge base yet, registers one document per file, and the knowledge base
 * that holds their leaves adopts them (activities/knowledge/knowledge-stores.ts decides which; here it is named).
 */
function expectLegacyMigrated(records: DocumentRecord[]): void {
  expect(records.map((r) => [r.doc_id, r.filename, r.source, r.l1 + r.l2, r.l3, r.content_hash])).toEqual([
    ['/srv/legacy/docs/LTS.md', 'LTS.md', '/srv/legacy/docs/LTS.md', 7, 0, ''],
    ['/srv/legacy/docs/guide.txt', 'guide.txt', '/srv/legacy/docs/guide.txt', 3, 0, ''],
  ]);
  expect(records.every((r) => r.bytes > 0 && r.pages === 1 && r.ingested_at !== '')).toBe(true);
}

test('migration: a SQLite parent store written before knowledge bases opens, its rows in the legacy knowledge base', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ragtime-legacy-'));
  const file = join(dir, 'ragtime.sqlite');
  copyFileSync(LEGACY_FIXTURE, file);
  const sql = createParentStore({ sqliteFile: file });
  try {
    expect(await sql.migrate()).toEqual(['0002_parent_chunks_by_kb', '0003_documents', '0004_documents_meta']);
    expect(await sql.legacy.pending()).toEqual(['/srv/legacy/docs/LTS.md', '/srv/legacy/docs/guide.txt']);
    expect(await sql.forKb('old_collection').countByDocument('/srv/legacy/docs/LTS.md')).toBe(0);
    expect(await sql.documents.knowledgeBases()).toEqual([]);
    await sql.legacy.adopt('old_collection', ['/srv/legacy/docs/LTS.md', '/srv/legacy/docs/guide.txt']);
    expect(await sql.legacy.pending()).toEqual([]);
    expect(await sql.forKb('old_collection').countByDocument('/srv/legacy/docs/LTS.md')).toBe(7);
    expect(await sql.forKb('another').countByDocument('/srv/legacy/docs/LTS.md')).toBe(0);
    const [root] = await sql.forKb('old_collection').getByIds(['LTS.md::p0::l1::0']);
    expect(root).toMatchObject({ filename: 'LTS.md', file_path: '/srv/legacy/docs/LTS.md', chunk_level: 1 });
    expectLegacyMigrated(await sql.documents.list('old_collection'));
    expect(await sql.documents.knowledgeBases()).toEqual(['old_collection']);
  } finally {
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('migration: the same data in PostgreSQL (the fixture copied into a fresh database at migration 0001)', async () => {
  await assertReachable('PostgreSQL', new URL(TEST_DATABASE_URL).host);
  const database = `ragtime_legacy_${RUN}`;
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const address = new URL(TEST_DATABASE_URL);
  address.pathname = `/${database}`;
  const url = address.toString();
  try {
    // The schema as 0001 left it, through the same migration, then the fixture's rows as that code wrote them.
    const db = new Kysely<Record<string, Record<string, unknown>>>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: url, max: 1 }) }) });
    const migrator = new Migrator({ db, provider: { getMigrations: async () => parentChunkMigrations() }, migrationTableName: MIGRATION_TABLE, migrationLockTableName: MIGRATION_LOCK_TABLE });
    expect((await migrator.migrateTo('0001_parent_chunks')).error).toBeUndefined();
    const rows = new Database(LEGACY_FIXTURE, { readonly: true }).prepare('SELECT * FROM parent_chunks').all() as Array<Record<string, unknown>>;
    await db.insertInto('parent_chunks').values(rows.map(({ updated_at: _updatedAt, ...row }) => row)).execute();
    await db.destroy();

    const sql = createParentStore({ databaseUrl: url, sqliteFile: '' });
    try {
      expect(await sql.migrate()).toEqual(['0002_parent_chunks_by_kb', '0003_documents', '0004_documents_meta']);
      await sql.legacy.adopt('old_collection', await sql.legacy.pending());
      expect(await sql.forKb('old_collection').countByDocument('/srv/legacy/docs/guide.txt')).toBe(3);
      expectLegacyMigrated(await sql.documents.list('old_collection'));
    } finally {
      await sql.close();
    }
  } finally {
    await admin.query(`DROP DATABASE ${database}`);
    await admin.end();
  }
});

test('PostgreSQL: the tables have the columns of spec §6.8 plus the knowledge base, and indexes by document', async () => {
  const store = createParentStore({ databaseUrl: TEST_DATABASE_URL, sqliteFile: '' });
  await store.migrate().finally(() => store.close());
  const client = new Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const columns = await client.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'parent_chunks' AND table_schema = current_schema() ORDER BY ordinal_position",
    );
    expect(columns.rows.map((r: { column_name: string }) => r.column_name)).toEqual([
      'kb',
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
    const indexes = await client.query("SELECT indexdef FROM pg_indexes WHERE tablename IN ('parent_chunks', 'documents') AND schemaname = current_schema()");
    const defs = indexes.rows.map((r: { indexdef: string }) => r.indexdef).join('\n');
    expect(defs).toMatch(/parent_chunks .*\(kb, chunk_id\)/);
    expect(defs).toMatch(/parent_chunks .*\(kb, file_path\)/);
    expect(defs).toMatch(/documents .*\(kb, doc_id\)/);
  } finally {
    await client.end();
  }
});

test('an unreachable PostgreSQL is a SERVICE_UNAVAILABLE RagError naming the database, not a crash', async () => {
  const store = createParentStore({ databaseUrl: 'postgres://postgres:secret@127.0.0.1:1/none', sqliteFile: '' });
  try {
    const error = await store.forKb('any').getByIds(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RagError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/^parent store migration failed \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none\)/);
    expect((error as Error).message).not.toMatch(/secret/);
  } finally {
    await store.close();
  }
});
