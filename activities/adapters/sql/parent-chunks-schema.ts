import { type ColumnType, type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { migrateToLatest } from './migrate';

/**
 * The `parent_chunks` table of spec §6.8 (all L1 and L2 chunks), keyed by knowledge base (DESIGN §4b). `file_path`
 * holds the chunk's document id.
 */
export type ParentChunksTable = {
  kb: string;
  chunk_id: string;
  text: string;
  filename: string;
  file_type: string;
  file_path: string;
  page_number: number;
  parent_chunk_id: string;
  root_chunk_id: string;
  chunk_level: number;
  chunk_idx: number;
  /** Set by the database on insert (SQLite returns text, PostgreSQL a Date); never written by the store. */
  updated_at: ColumnType<Date | string, never, never>;
};

/** The document registry (`ragtime docs list`): one row per document of a knowledge base. */
export type DocumentsTable = {
  kb: string;
  doc_id: string;
  filename: string;
  source: string;
  file_type: string;
  pages: number;
  l1: number;
  l2: number;
  l3: number;
  bytes: number;
  content_hash: string;
  ingested_at: string;
  /** The document's metadata as JSON (issue 44 §1); NULL for documents registered before it. */
  meta: string | null;
};

export type ParentChunksDatabase = { parent_chunks: ParentChunksTable; documents: DocumentsTable };

/** The knowledge base of rows written before knowledge bases existed, until one adopts them. */
export const LEGACY_KB = '';

const CHUNK_COLUMNS = ['chunk_id', 'text', 'filename', 'file_type', 'file_path', 'page_number', 'parent_chunk_id', 'root_chunk_id', 'chunk_level', 'chunk_idx'] as const;

/*
 * One set of migrations for SQLite and PostgreSQL (kysely writes the dialect's DDL). Add migrations, never edit one
 * that has shipped. `ifNotExists` lets the store adopt a `parent_chunks` table that SuperMew created (same columns).
 * Rows written before knowledge bases existed get the knowledge base LEGACY_KB (''): no process can tell from SQL
 * which collection they were written for, so the knowledge base whose collection holds a document's leaves adopts
 * it when it is first opened (activities/knowledge/knowledge-stores.ts).
 */
export function parentChunkMigrations(): Record<string, Migration> {
  return {
    '0001_parent_chunks': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('parent_chunks')
          .ifNotExists()
          .addColumn('chunk_id', 'text', (c) => c.primaryKey())
          .addColumn('text', 'text', (c) => c.notNull())
          .addColumn('filename', 'text', (c) => c.notNull())
          .addColumn('file_type', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('file_path', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('page_number', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('parent_chunk_id', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('root_chunk_id', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('chunk_level', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('chunk_idx', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
          .execute();
        await db.schema.createIndex('parent_chunks_filename_idx').ifNotExists().on('parent_chunks').column('filename').execute();
      },
    },
    // Knowledge bases: the table is rebuilt with (kb, chunk_id) as its key (SQLite cannot change a primary key in
    // place); the rows already there get LEGACY_KB until a knowledge base adopts them. Documents are found by
    // (kb, file_path).
    '0002_parent_chunks_by_kb': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('parent_chunks_kb')
          .addColumn('kb', 'text', (c) => c.notNull())
          .addColumn('chunk_id', 'text', (c) => c.notNull())
          .addColumn('text', 'text', (c) => c.notNull())
          .addColumn('filename', 'text', (c) => c.notNull())
          .addColumn('file_type', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('file_path', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('page_number', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('parent_chunk_id', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('root_chunk_id', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('chunk_level', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('chunk_idx', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
          .addPrimaryKeyConstraint('parent_chunks_kb_pk', ['kb', 'chunk_id'])
          .execute();
        const columns = sql.join([...CHUNK_COLUMNS, 'updated_at'].map((column) => sql.ref(column)));
        await sql`INSERT INTO parent_chunks_kb (kb, ${columns}) SELECT ${sql.lit(LEGACY_KB)}, ${columns} FROM parent_chunks`.execute(db);
        await db.schema.dropTable('parent_chunks').execute();
        await db.schema.alterTable('parent_chunks_kb').renameTo('parent_chunks').execute();
        await db.schema.createIndex('parent_chunks_document_idx').on('parent_chunks').columns(['kb', 'file_path']).execute();
      },
    },
    // The document registry, filled from the parent rows already there (one document per kb and file_path; their
    // leaf count is not in SQL, so it reads 0 until the document is ingested again).
    '0003_documents': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('documents')
          .addColumn('kb', 'text', (c) => c.notNull())
          .addColumn('doc_id', 'text', (c) => c.notNull())
          .addColumn('filename', 'text', (c) => c.notNull())
          .addColumn('source', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('file_type', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('pages', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('l1', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('l2', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('l3', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('content_hash', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('ingested_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('documents_pk', ['kb', 'doc_id'])
          .execute();
        await db.schema.createIndex('documents_source_idx').on('documents').columns(['kb', 'source']).execute();
        await sql`
          INSERT INTO documents (kb, doc_id, filename, source, file_type, pages, l1, l2, l3, bytes, content_hash, ingested_at)
          SELECT kb, file_path, MIN(filename), file_path, MIN(file_type), COUNT(DISTINCT page_number),
                 SUM(CASE WHEN chunk_level = 1 THEN 1 ELSE 0 END), SUM(CASE WHEN chunk_level = 2 THEN 1 ELSE 0 END), 0,
                 SUM(LENGTH(text)), '', CAST(MAX(updated_at) AS TEXT)
          FROM parent_chunks GROUP BY kb, file_path`.execute(db);
      },
    },
    // Metadata on documents (issue 44 §1): a JSON object of lists of strings; NULL for documents registered before.
    '0004_documents_meta': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('documents').addColumn('meta', 'text').execute();
      },
    },
  };
}

// Own bookkeeping tables, so that other stores may keep their own kysely migrations in the same database.
export const MIGRATION_TABLE = 'ragtime_parent_store_migration';
export const MIGRATION_LOCK_TABLE = 'ragtime_parent_store_migration_lock';

/** Brings the schema to the latest version (idempotent; concurrent callers wait on kysely's migration lock). */
export async function migrateParentChunks(db: Kysely<ParentChunksDatabase>): Promise<string[]> {
  return migrateToLatest(db as Kysely<unknown>, parentChunkMigrations(), { migrations: MIGRATION_TABLE, lock: MIGRATION_LOCK_TABLE });
}
