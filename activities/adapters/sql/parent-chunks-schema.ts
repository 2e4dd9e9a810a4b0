import { type ColumnType, type Kysely, sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';

/** The `parent_chunks` table of spec §6.8 (all L1 and L2 chunks). */
export type ParentChunksTable = {
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

export type ParentChunksDatabase = { parent_chunks: ParentChunksTable };

/*
 * One set of migrations for SQLite and PostgreSQL (kysely writes the dialect's DDL). Add migrations, never edit one
 * that has shipped. `ifNotExists` lets the store adopt a `parent_chunks` table that SuperMew created (same columns).
 */
const MIGRATIONS: Record<string, Migration> = {
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
};

// Own bookkeeping tables, so that other stores may keep their own kysely migrations in the same database.
const MIGRATION_TABLE = 'ragtime_parent_store_migration';
const MIGRATION_LOCK_TABLE = 'ragtime_parent_store_migration_lock';

/** Brings the schema to the latest version (idempotent; concurrent callers wait on kysely's migration lock). */
export async function migrateParentChunks(db: Kysely<ParentChunksDatabase>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
