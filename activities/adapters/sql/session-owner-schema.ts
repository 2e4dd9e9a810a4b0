import { type ColumnType, type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { migrateToLatest } from './migrate';

/** `session_owner`: which tenant of the HTTP API created a session (its first run). */
export type SessionOwnerTable = {
  session_id: string;
  tenant: string;
  /** Set by the database on insert (SQLite returns text, PostgreSQL a Date); never written by the store. */
  created_at: ColumnType<Date | string, never, never>;
};

/**
 * `purged_tenant`: a tenant erased by `ragtime tenant purge` (issue 45 §2). Tokens live in the configuration, which the
 * purge cannot change, so the HTTP API refuses every token of a tenant named here. The name is all it keeps.
 */
export type PurgedTenantTable = {
  tenant: string;
  purged_at: ColumnType<Date | string, never, never>;
};

export type SessionOwnerDatabase = { session_owner: SessionOwnerTable; purged_tenant: PurgedTenantTable };

/* One set of migrations for SQLite and PostgreSQL. Add migrations, never edit one that has shipped. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_session_owner': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('session_owner')
        .ifNotExists()
        .addColumn('session_id', 'text', (c) => c.primaryKey())
        .addColumn('tenant', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
        .execute();
    },
  },
  '0002_purged_tenant': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('purged_tenant')
        .ifNotExists()
        .addColumn('tenant', 'text', (c) => c.primaryKey())
        .addColumn('purged_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
        .execute();
    },
  },
};

// Own bookkeeping tables, so that the audit and parent stores keep their own kysely migrations in the same database.
const MIGRATION_TABLE = 'ragtime_session_owner_migration';
const MIGRATION_LOCK_TABLE = 'ragtime_session_owner_migration_lock';

/** Brings the schema to the latest version (idempotent; concurrent callers wait on kysely's migration lock). */
export async function migrateSessionOwners(db: Kysely<SessionOwnerDatabase>): Promise<string[]> {
  return migrateToLatest(db as Kysely<unknown>, MIGRATIONS, { migrations: MIGRATION_TABLE, lock: MIGRATION_LOCK_TABLE });
}
