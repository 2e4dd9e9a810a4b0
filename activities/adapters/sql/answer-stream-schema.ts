import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { migrateToLatest } from './migrate';

/*
 * `answer_stream_event`: the answer text as the writer produced it (issue 25 §2, docs/design/streaming-evaluation.md):
 * a side channel beside Temporal, never the record — the run's result is. Keyed by the run, the answer generation the
 * workflow named (the writer's call, a speculative draft, the repair), the activity attempt, and a sequence number the
 * publisher counts; so a retried attempt writes beside the one it replaces, and a reader tells them apart.
 */
export type AnswerStreamTable = {
  workflow_id: string;
  generation: string;
  attempt: number;
  seq: number;
  /** delta (answer text), restart (what this attempt showed so far is void: a re-ask, a rung change), end. */
  kind: string;
  text: string;
  created_at: string;
};

export type AnswerStreamDatabase = { answer_stream_event: AnswerStreamTable };

/* One set of migrations for SQLite and PostgreSQL. Add migrations, never edit one that has shipped. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_answer_stream_event': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('answer_stream_event')
        .ifNotExists()
        .addColumn('workflow_id', 'text', (c) => c.notNull())
        .addColumn('generation', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        // Also the order a reader wants: one run's generation, attempt by attempt, event by event.
        .addPrimaryKeyConstraint('answer_stream_event_pkey', ['workflow_id', 'generation', 'attempt', 'seq'])
        .execute();
    },
  },
  // Housekeeping (issue 35 §1) finds the runs that have gone quiet by age.
  '0002_created_at_index': {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('answer_stream_event_created_idx').ifNotExists().on('answer_stream_event').column('created_at').execute();
    },
  },
};

const MIGRATION_TABLE = 'ragtime_answer_stream_migration';
const MIGRATION_LOCK_TABLE = 'ragtime_answer_stream_migration_lock';

/** Brings the schema to the latest version (idempotent; concurrent callers wait on kysely's migration lock). */
export async function migrateAnswerStream(db: Kysely<AnswerStreamDatabase>): Promise<string[]> {
  return migrateToLatest(db as Kysely<unknown>, MIGRATIONS, { migrations: MIGRATION_TABLE, lock: MIGRATION_LOCK_TABLE });
}
