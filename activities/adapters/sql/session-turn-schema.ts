import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { migrateToLatest } from './migrate';

/*
 * `session_turn`: the completed turns of a conversation (issue 25 §1), keyed by tenant and session so that the same
 * session id under two tenants is two conversations. Times are ISO-8601 text, as in the audit tables, so rows read
 * the same on SQLite and PostgreSQL.
 */
export type SessionTurnTable = {
  tenant: string;
  session_id: string;
  /** 1-based, per (tenant, session_id); assigned by the store, one more than the session's latest. */
  turn: number;
  question: string;
  standalone_question: string;
  answer: string | null;
  /** A core Route, or null when the run ended without one. */
  route: string | null;
  /** The run that made the turn; unique per session, so a retried activity never records a turn twice. */
  workflow_id: string;
  created_at: string;
};

export type SessionTurnDatabase = { session_turn: SessionTurnTable };

/* One set of migrations for SQLite and PostgreSQL. Add migrations, never edit one that has shipped. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_session_turn': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('session_turn')
        .ifNotExists()
        .addColumn('tenant', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('turn', 'integer', (c) => c.notNull())
        .addColumn('question', 'text', (c) => c.notNull())
        .addColumn('standalone_question', 'text', (c) => c.notNull())
        .addColumn('answer', 'text')
        .addColumn('route', 'text')
        .addColumn('workflow_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        // The key also serves turnsOf (one session's turns in turn order); the store relies on both constraints
        // to number turns without gaps or duplicates (see sql-session-turns.ts append).
        .addPrimaryKeyConstraint('session_turn_pkey', ['tenant', 'session_id', 'turn'])
        .addUniqueConstraint('session_turn_workflow_key', ['tenant', 'session_id', 'workflow_id'])
        .execute();
    },
  },
  // Retention (issue 35 §1) deletes by age.
  '0002_created_at_index': {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('session_turn_created_idx').ifNotExists().on('session_turn').column('created_at').execute();
    },
  },
};

// Own bookkeeping tables, so the audit, parent and session-owner stores keep their own kysely migrations in the
// same database.
const MIGRATION_TABLE = 'ragtime_session_turn_migration';
const MIGRATION_LOCK_TABLE = 'ragtime_session_turn_migration_lock';

/** Brings the schema to the latest version (idempotent; concurrent callers wait on kysely's migration lock). */
export async function migrateSessionTurns(db: Kysely<SessionTurnDatabase>): Promise<string[]> {
  return migrateToLatest(db as Kysely<unknown>, MIGRATIONS, { migrations: MIGRATION_TABLE, lock: MIGRATION_LOCK_TABLE });
}
