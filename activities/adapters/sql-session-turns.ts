import type { Selectable } from 'kysely';
import { z } from 'zod';
import { describeZodError, RagError } from '../../core/errors';
import { SessionTurn } from '../../core/schemas/conversation';
import { lazyMigratedStore, openSqlDatabase, type SqlBackend, type SqlLocation } from './sql/database';
import { migrateSessionTurns, type SessionTurnDatabase, type SessionTurnTable } from './sql/session-turn-schema';

/*
 * The completed turns of each conversation (issue 25 §1, docs/design/conversations.md): what a later turn of the
 * session reads to condense its question and to show the answer step. Kept in the same SQL database as the audit
 * store (a SQLite file by default, PostgreSQL when DATABASE_URL is set), in its own table with its own migrations.
 * Keyed by tenant and session: the same session id under two tenants is two conversations, and neither sees the other.
 */

export type SessionTurnStore = {
  /**
   * Records a completed turn as the session's next one (1, 2, 3, … with no gaps, even when appends race) and returns
   * it. Idempotent by workflow id: a turn already recorded for `turn.workflowId` is returned unchanged, so a retried
   * activity never records a turn twice.
   */
  append(tenant: string, sessionId: string, turn: Omit<SessionTurn, 'turn'>, at: string): Promise<SessionTurn>;
  /** The session's turns, oldest first; `last`: only the latest N. */
  turnsOf(tenant: string, sessionId: string, options?: { last?: number }): Promise<SessionTurn[]>;
  /**
   * Erases the session's turns (issue 35 §2): the tenant's only, or every tenant's under that id when `tenant` is
   * null (the operator). Returns how many went and the runs they named.
   */
  eraseSession(sessionId: string, tenant: string | null): Promise<{ turns: number; workflowIds: string[] }>;
  /** The sessions a tenant has turns in (for `ragtime tenant purge`). */
  sessionsOf(tenant: string): Promise<string[]>;
  /** Retention (issue 35 §1): deletes the turns recorded before `cutoff` (ISO time); returns how many went. */
  pruneBefore(cutoff: string): Promise<number>;
  close(): Promise<void>;
};

export type SqlSessionTurnStore = SessionTurnStore & {
  readonly backend: SqlBackend;
  /** Runs the migrations (also run lazily by the first operation); resolves to the names applied now. */
  migrate(): Promise<string[]>;
  /** How many turns the tenant has, in every session (`ragtime tenant purge --dry-run`, issue 45 §2). */
  countOf(tenant: string): Promise<number>;
};

const STORE = 'session turn store';

// Each lost attempt means a concurrent append to the same session took that number and succeeded, so k appenders
// racing need at most k attempts. One session's turns come one run at a time; this bound is never reached in practice.
const MAX_APPEND_ATTEMPTS = 100;

// Any tenant string, '' included: runs that reach no HTTP tenant (CLI, SDK) may share one, still apart from the rest.
const Key = z.object({ tenant: z.string(), sessionId: z.string().min(1) });
const AppendInput = Key.extend({ turn: SessionTurn.omit({ turn: true }), at: z.iso.datetime() });
const TurnsOfInput = Key.extend({ last: z.number().int().min(0).optional() });

/** Parses an operation's arguments; a bad one is INVALID_INPUT (terminal: no retry changes it). */
function parseInput<T>(operation: string, schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError(`${STORE} ${operation}`, parsed.error));
  return parsed.data;
}

/** A stored row, checked against SessionTurn: a row that no longer parses is an INTERNAL error naming it. */
function toTurn(row: Selectable<SessionTurnTable>): SessionTurn {
  const parsed = SessionTurn.safeParse({
    turn: Number(row.turn), // PostgreSQL drivers may hand integers back as strings
    question: row.question,
    standaloneQuestion: row.standalone_question,
    answer: row.answer,
    route: row.route,
    workflowId: row.workflow_id,
  });
  if (!parsed.success) {
    const where = `session_turn ${JSON.stringify([row.tenant, row.session_id, row.turn])}`;
    throw new RagError('INTERNAL', describeZodError(where, parsed.error));
  }
  return parsed.data;
}

/** Opens the store. Nothing touches the database until the first operation (or `migrate()`). */
export function createSessionTurnStore(location: SqlLocation): SqlSessionTurnStore {
  const { db, backend, where } = openSqlDatabase<SessionTurnDatabase>(location);
  const { migrate, ready } = lazyMigratedStore(STORE, where, () => migrateSessionTurns(db));

  const session = (tenant: string, sessionId: string) =>
    db.selectFrom('session_turn').selectAll().where('tenant', '=', tenant).where('session_id', '=', sessionId);
  const turnOfRun = async (tenant: string, sessionId: string, workflowId: string): Promise<SessionTurn | null> => {
    const row = await session(tenant, sessionId).where('workflow_id', '=', workflowId).executeTakeFirst();
    return row === undefined ? null : toTurn(row);
  };

  /*
   * The next number is read and written in one INSERT, and ON CONFLICT DO NOTHING covers both constraints: the run's
   * turn exists already (a retry: return it), or a concurrent append took the number first (try again with the next
   * one). One statement is atomic on SQLite (it takes the write lock before it reads) and, on PostgreSQL, waits for the
   * other writer's commit before it gives way: no transaction, lock or isolation level needed on either.
   */
  const append = async (tenant: string, sessionId: string, turn: Omit<SessionTurn, 'turn'>, at: string): Promise<SessionTurn> => {
    const existing = await turnOfRun(tenant, sessionId, turn.workflowId);
    if (existing !== null) return existing;
    for (let attempt = 1; attempt <= MAX_APPEND_ATTEMPTS; attempt += 1) {
      await db
        .insertInto('session_turn')
        .values((eb) => ({
          tenant,
          session_id: sessionId,
          turn: eb
            .selectFrom('session_turn')
            .select((s) => s(s.fn.coalesce(s.fn.max('turn'), s.lit(0)), '+', s.lit(1)).as('next'))
            .where('tenant', '=', tenant)
            .where('session_id', '=', sessionId),
          question: turn.question,
          standalone_question: turn.standaloneQuestion,
          answer: turn.answer,
          route: turn.route,
          workflow_id: turn.workflowId,
          created_at: at,
        }))
        .onConflict((oc) => oc.doNothing())
        .execute();
      const recorded = await turnOfRun(tenant, sessionId, turn.workflowId);
      if (recorded !== null) return recorded;
    }
    throw new RagError(
      'SERVICE_UNAVAILABLE',
      `${STORE} append failed (${where}): session ${JSON.stringify(sessionId)} of tenant ${JSON.stringify(tenant)} had its ` +
        `next turn number taken by concurrent appends ${MAX_APPEND_ATTEMPTS} times in a row; retry the append`,
    );
  };

  return {
    backend,
    migrate,
    append: async (tenant, sessionId, turn, at) => {
      const input = parseInput('append', AppendInput, { tenant, sessionId, turn, at });
      return ready('append', () => append(input.tenant, input.sessionId, input.turn, input.at));
    },
    turnsOf: async (tenant, sessionId, options = {}) => {
      const { last } = parseInput('turnsOf', TurnsOfInput, { tenant, sessionId, last: options.last });
      return ready('turnsOf', async () => {
        if (last === undefined) return (await session(tenant, sessionId).orderBy('turn').execute()).map(toTurn);
        const latest = await session(tenant, sessionId).orderBy('turn', 'desc').limit(last).execute();
        return latest.reverse().map(toTurn);
      });
    },
    eraseSession: (sessionId, tenant) =>
      ready('eraseSession', async () => {
        const rows = await db
          .deleteFrom('session_turn')
          .where('session_id', '=', sessionId)
          .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string))
          .returning('workflow_id')
          .execute();
        return { turns: rows.length, workflowIds: [...new Set(rows.map((row) => row.workflow_id))] };
      }),
    sessionsOf: (tenant) =>
      ready('sessionsOf', async () => (await db.selectFrom('session_turn').select('session_id').distinct().where('tenant', '=', tenant).execute()).map((row) => row.session_id)),
    countOf: (tenant) =>
      ready('countOf', async () => Number((await db.selectFrom('session_turn').select((eb) => eb.fn.countAll().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow()).n)),
    pruneBefore: (cutoff) =>
      ready('pruneBefore', async () => Number((await db.deleteFrom('session_turn').where('created_at', '<', cutoff).executeTakeFirst()).numDeletedRows)),
    close: () => db.destroy(),
  };
}
