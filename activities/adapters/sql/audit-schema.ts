import type { Generated, Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { migrateToLatest } from './migrate';
import type { SqlBackend } from './database';

/*
 * The audit tables (DESIGN §5 layer B, issue 6 §1, seed 004 §4.2). Booleans are stored as 0/1 integers and times
 * as ISO-8601 text (workflow time, UTC, fixed width, so text order is time order) on both backends, so the rows and
 * their ordering read the same on SQLite and PostgreSQL. `id` only breaks ties of equal times (insertion order).
 */

/** One knowledge-tool invocation; unique on (workflow_id, run_id, step). */
export type ToolInvocationTable = {
  id: Generated<number>;
  session_id: string;
  workflow_id: string;
  run_id: string;
  step: string;
  tool_name: string;
  retrieval_layer: string;
  relevance_level: string | null;
  evidence_count: number;
  candidate_count: number;
  is_truncated: number;
  /** JSON text of RetrievalDetails (rag_lookup_v1). */
  retrieval_details: string;
  output_preview: string;
  duration_ms: number;
  success: number;
  error_message: string | null;
  created_at: string;
  /** JSON text of AuditContent; null unless the store was opened with includeContent. */
  content_json: string | null;
};

/** One timeline event; unique on (workflow_id, run_id, key). */
export type DiagnosisEventTable = {
  id: Generated<number>;
  session_id: string;
  workflow_id: string;
  run_id: string;
  key: string;
  event_type: string;
  /** JSON text of the bounded detail record. */
  detail_json: string;
  created_at: string;
};

export type AuditDatabase = {
  tool_invocation: ToolInvocationTable;
  diagnosis_event: DiagnosisEventTable;
};

/**
 * One set of migrations for SQLite and PostgreSQL; the only dialect difference is how the tie-breaking id is
 * generated. Add migrations, never edit one that has shipped.
 */
function migrations(backend: SqlBackend): Record<string, Migration> {
  return {
    '0001_audit_tables': {
      async up(db: Kysely<unknown>) {
        const serial = backend === 'postgres' ? 'serial' : 'integer';
        await db.schema
          .createTable('tool_invocation')
          .ifNotExists()
          .addColumn('id', serial, (c) => (backend === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('session_id', 'text', (c) => c.notNull())
          .addColumn('workflow_id', 'text', (c) => c.notNull())
          .addColumn('run_id', 'text', (c) => c.notNull())
          .addColumn('step', 'text', (c) => c.notNull())
          .addColumn('tool_name', 'text', (c) => c.notNull())
          .addColumn('retrieval_layer', 'text', (c) => c.notNull())
          .addColumn('relevance_level', 'text')
          .addColumn('evidence_count', 'integer', (c) => c.notNull())
          .addColumn('candidate_count', 'integer', (c) => c.notNull())
          .addColumn('is_truncated', 'integer', (c) => c.notNull())
          .addColumn('retrieval_details', 'text', (c) => c.notNull())
          .addColumn('output_preview', 'text', (c) => c.notNull())
          .addColumn('duration_ms', 'integer', (c) => c.notNull())
          .addColumn('success', 'integer', (c) => c.notNull())
          .addColumn('error_message', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('content_json', 'text')
          .addUniqueConstraint('tool_invocation_run_step_key', ['workflow_id', 'run_id', 'step'])
          .execute();
        await db.schema
          .createIndex('tool_invocation_session_idx')
          .ifNotExists()
          .on('tool_invocation')
          .columns(['session_id', 'created_at'])
          .execute();
        await db.schema
          .createTable('diagnosis_event')
          .ifNotExists()
          .addColumn('id', serial, (c) => (backend === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('session_id', 'text', (c) => c.notNull())
          .addColumn('workflow_id', 'text', (c) => c.notNull())
          .addColumn('run_id', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('event_type', 'text', (c) => c.notNull())
          .addColumn('detail_json', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('diagnosis_event_run_key', ['workflow_id', 'run_id', 'key'])
          .execute();
        await db.schema
          .createIndex('diagnosis_event_session_idx')
          .ifNotExists()
          .on('diagnosis_event')
          .columns(['session_id', 'created_at'])
          .execute();
      },
    },
    // Retention (issue 35 §1) deletes by age.
    '0002_created_at_indexes': {
      async up(db: Kysely<unknown>) {
        await db.schema.createIndex('tool_invocation_created_idx').ifNotExists().on('tool_invocation').column('created_at').execute();
        await db.schema.createIndex('diagnosis_event_created_idx').ifNotExists().on('diagnosis_event').column('created_at').execute();
      },
    },
  };
}

// Own bookkeeping tables, so the audit store's migrations never mix with the parent store's in a shared database.
const MIGRATION_TABLE = 'ragtime_audit_store_migration';
const MIGRATION_LOCK_TABLE = 'ragtime_audit_store_migration_lock';

/** Brings the audit schema to the latest version (idempotent; concurrent callers wait on kysely's migration lock). */
export async function migrateAuditTables(db: Kysely<AuditDatabase>, backend: SqlBackend): Promise<string[]> {
  return migrateToLatest(db as Kysely<unknown>, migrations(backend), { migrations: MIGRATION_TABLE, lock: MIGRATION_LOCK_TABLE });
}
