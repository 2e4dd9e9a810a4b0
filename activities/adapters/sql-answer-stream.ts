import { sql, type Selectable } from 'kysely';
import { StreamEvent } from '../../core/schemas/answer-stream';
import { lazyMigratedStore, openSqlDatabase, type SqlBackend, type SqlLocation } from './sql/database';
import { migrateAnswerStream, type AnswerStreamDatabase, type AnswerStreamTable } from './sql/answer-stream-schema';
import { ANSWER_STREAM_CHANNEL, createPgNotifications, notificationPayload, type AppendListener } from './sql/pg-notifications';
import { createLocalNotifications, localPushPath } from './sql/local-notifications';

/*
 * The side channel of streaming answers (issue 25 §2): what the answer writer generates, as it generates it, in the
 * audit store's database (a SQLite file by default, PostgreSQL when DATABASE_URL is set) — something every worker,
 * `ragtime serve` and the CLI already share. Never the record: a lost event is repaired by the run's result.
 */

export type AnswerStreamStore = {
  /** Appends events of one run (idempotent on their key: a retried write adds nothing). */
  append(workflowId: string, events: readonly StreamEvent[], at: string): Promise<void>;
  /** The events of one generation after (attempt, seq), in order. */
  eventsOf(workflowId: string, generation: string, after: { attempt: number; seq: number }): Promise<StreamEvent[]>;
  /**
   * Calls `listener` (with the generation written, and the events appended when the notification could carry them)
   * whenever events of the run are appended by any process (issue 36 §3): PostgreSQL's NOTIFY; on a SQLite file, the
   * processes sharing it push over a Unix socket beside it (issue 47 §2, sql/local-notifications.ts). Absent on an
   * in-memory database, whose readers poll. Returns the unsubscribe.
   */
  onAppend?(workflowId: string, listener: PushListener): () => void;
  /** Erases every event of these runs (issue 35 §2); returns how many went. */
  eraseRuns(workflowIds: readonly string[]): Promise<number>;
  /**
   * Housekeeping (issue 35 §1): deletes every event of the runs whose newest event is older than `quietSince` (ISO
   * time) — settled runs whose listeners have long had their end; the run's result stays the record. Returns how many.
   */
  pruneQuietSince(quietSince: string): Promise<number>;
  close(): Promise<void>;
};

export type SqlAnswerStreamStore = AnswerStreamStore & {
  readonly backend: SqlBackend;
  migrate(): Promise<string[]>;
  /** How many events these runs have (`ragtime tenant purge --dry-run`, issue 45 §2). */
  countRuns(workflowIds: readonly string[]): Promise<number>;
};

const STORE = 'answer stream store';

/** A subscriber of the pushes: the generation written, and its events when the notification carried them. */
export type PushListener = (generation: string, events?: StreamEvent[]) => void;

/** The events a notification carried, checked as the stored ones are; none when they do not parse. */
const pushedEvents = (listener: PushListener): AppendListener => (generation, events) => {
  const parsed = events === undefined ? null : StreamEvent.array().safeParse(events);
  listener(generation, parsed?.success ? parsed.data : undefined);
};

const toEvent = (row: Selectable<AnswerStreamTable>): StreamEvent =>
  StreamEvent.parse({ generation: row.generation, attempt: Number(row.attempt), seq: Number(row.seq), kind: row.kind, text: row.text });

/** Opens the store. Nothing touches the database until the first operation (or `migrate()`). */
export function createAnswerStreamStore(location: SqlLocation): SqlAnswerStreamStore {
  const { db, backend, where } = openSqlDatabase<AnswerStreamDatabase>(location);
  const { migrate, ready } = lazyMigratedStore(STORE, where, () => migrateAnswerStream(db));
  const notifications = backend === 'postgres' && location.databaseUrl ? createPgNotifications(location.databaseUrl) : null;
  const socketPath = backend === 'sqlite' ? localPushPath(location.sqliteFile) : null;
  const local = socketPath === null ? null : createLocalNotifications(socketPath);
  const push = notifications ?? local;
  return {
    backend,
    migrate,
    append: (workflowId, events, at) =>
      ready('append', async () => {
        if (events.length === 0) return;
        const rows = events.map((event) => ({ workflow_id: workflowId, ...event, created_at: at }));
        const insert = db.insertInto('answer_stream_event').values(rows).onConflict((oc) => oc.doNothing());
        if (!notifications) {
          await insert.execute();
          // Committed: the processes sharing the file are told (a woken listener finds the rows there).
          for (const generation of new Set(events.map((event) => event.generation))) local?.publish(workflowId, generation, events.filter((event) => event.generation === generation));
          return;
        }
        // One statement, one round trip (issue 36 §2): the rows and a notification per generation written. PostgreSQL
        // delivers a NOTIFY when its transaction commits, so a woken listener finds the rows there.
        const generations = [...new Set(events.map((event) => event.generation))];
        await db
          .with('inserted', () => insert.returning('seq'))
          .selectNoFrom(
            generations.map((generation, i) => {
              const payload = notificationPayload(workflowId, generation, events.filter((event) => event.generation === generation));
              return sql<string>`pg_notify(${ANSWER_STREAM_CHANNEL}, ${payload})`.as(`n${i}`);
            }),
          )
          .execute();
      }),
    ...(push ? { onAppend: (workflowId: string, listener: PushListener) => push.subscribe(workflowId, pushedEvents(listener)) } : {}),
    eventsOf: (workflowId, generation, after) =>
      ready('eventsOf', async () => {
        const rows = await db
          .selectFrom('answer_stream_event')
          .selectAll()
          .where('workflow_id', '=', workflowId)
          .where('generation', '=', generation)
          .where((eb) => eb.or([eb('attempt', '>', after.attempt), eb.and([eb('attempt', '=', after.attempt), eb('seq', '>', after.seq)])]))
          .orderBy('attempt')
          .orderBy('seq')
          .execute();
        return rows.map(toEvent);
      }),
    eraseRuns: (workflowIds) =>
      ready('eraseRuns', async () => {
        if (workflowIds.length === 0) return 0;
        const result = await db.deleteFrom('answer_stream_event').where('workflow_id', 'in', [...workflowIds]).executeTakeFirst();
        return Number(result.numDeletedRows);
      }),
    countRuns: (workflowIds) =>
      ready('countRuns', async () => {
        let count = 0;
        for (let i = 0; i < workflowIds.length; i += 500) {
          const row = await db.selectFrom('answer_stream_event').select((eb) => eb.fn.countAll().as('n')).where('workflow_id', 'in', workflowIds.slice(i, i + 500)).executeTakeFirstOrThrow();
          count += Number(row.n);
        }
        return count;
      }),
    pruneQuietSince: (quietSince) =>
      ready('pruneQuietSince', async () => {
        const quiet = db
          .selectFrom('answer_stream_event')
          .select('workflow_id')
          .groupBy('workflow_id')
          .having((eb) => eb.fn.max('created_at'), '<', quietSince);
        const settled = (await quiet.execute()).map((row) => row.workflow_id);
        let deleted = 0;
        // A bounded IN list per statement (SQLite's and PostgreSQL's parameter limits).
        for (let i = 0; i < settled.length; i += 500) {
          const result = await db.deleteFrom('answer_stream_event').where('workflow_id', 'in', settled.slice(i, i + 500)).executeTakeFirst();
          deleted += Number(result.numDeletedRows);
        }
        return deleted;
      }),
    close: async () => {
      await push?.close();
      await db.destroy();
    },
  };
}
