import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { migrateToLatest } from './migrate';

/** `sync_pass`: one row per pass of a synced source (issue 46 §1), its report as JSON; keyed by the pass's workflow id. */
export type SyncPassTable = {
  workflow_id: string;
  source: string;
  kb: string;
  status: string;
  /** ISO time the pass finished: the latest row of a source is its last pass. */
  finished_at: string;
  report: string;
};

export type SyncPassDatabase = { sync_pass: SyncPassTable };

/* One set of migrations for SQLite and PostgreSQL. Add migrations, never edit one that has shipped. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_sync_pass': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sync_pass')
        .ifNotExists()
        .addColumn('workflow_id', 'text', (c) => c.primaryKey())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('kb', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text', (c) => c.notNull())
        .addColumn('report', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sync_pass_by_source').ifNotExists().on('sync_pass').columns(['source', 'finished_at']).execute();
    },
  },
};

const MIGRATION_TABLE = 'ragtime_sync_pass_migration';
const MIGRATION_LOCK_TABLE = 'ragtime_sync_pass_migration_lock';

/** Brings the schema to the latest version (idempotent; concurrent callers wait on kysely's migration lock). */
export async function migrateSyncPasses(db: Kysely<SyncPassDatabase>): Promise<string[]> {
  return migrateToLatest(db as Kysely<unknown>, MIGRATIONS, { migrations: MIGRATION_TABLE, lock: MIGRATION_LOCK_TABLE });
}
