import { lazyMigratedStore, openSqlDatabase, type SqlBackend, type SqlLocation } from './sql/database';
import { migrateSessionOwners, type SessionOwnerDatabase } from './sql/session-owner-schema';

/*
 * Which tenant owns a session, for the HTTP API's tenancy rule: a session belongs to the tenant whose request
 * created it, and every other tenant is told it does not exist. Kept in the same SQL database as the audit store
 * (a SQLite file by default, PostgreSQL when DATABASE_URL is set), in its own table with its own migrations.
 *
 * It lives with the other SQL adapters rather than in server/http because it is a store like them (same
 * connection helper, error wrapping and migration pattern); only the HTTP server uses it.
 */

export type SessionOwnerStore = {
  /**
   * Makes `tenant` the owner of `sessionId` unless someone owns it already, and returns the owner. Atomic: of two
   * tenants claiming a new session at once, exactly one wins and both learn who.
   */
  claim(sessionId: string, tenant: string): Promise<string>;
  /** The owner of a session, or null when no tenant has claimed it. */
  ownerOf(sessionId: string): Promise<string | null>;
  /** The sessions a tenant owns (for `ragtime tenant purge`). */
  sessionsOf(tenant: string): Promise<string[]>;
  close(): Promise<void>;
};

/**
 * Tenants erased by `ragtime tenant purge` (issue 45 §2), whose tokens the HTTP API refuses: the tokens are in the
 * configuration (RAGTIME_API_TOKENS), which the purge cannot change, and every server reads this database.
 */
export type PurgedTenants = {
  isPurged(tenant: string): Promise<boolean>;
};

/** What `ragtime tenant purge` and `readmit` change here. */
export type TenantPurgeRecords = PurgedTenants & {
  /** Names the tenant purged (idempotent): from then on its tokens are refused. */
  markPurged(tenant: string): Promise<void>;
  /** Takes the mark away (`ragtime tenant readmit`); false when there was none. */
  readmit(tenant: string): Promise<boolean>;
  /** Deletes the tenant's owner rows; resolves to how many went. */
  eraseOwners(tenant: string): Promise<number>;
};

export type SqlSessionOwnerStore = SessionOwnerStore & TenantPurgeRecords & {
  readonly backend: SqlBackend;
  /** Runs the migrations (also run lazily by the first operation); resolves to the names applied now. */
  migrate(): Promise<string[]>;
};

const STORE = 'session owner store';

/** Opens the store. Nothing touches the database until the first operation (or `migrate()`). */
export function createSessionOwnerStore(location: SqlLocation): SqlSessionOwnerStore {
  const { db, backend, where } = openSqlDatabase<SessionOwnerDatabase>(location);
  const { migrate, ready } = lazyMigratedStore(STORE, where, () => migrateSessionOwners(db));
  const ownerOf = async (sessionId: string): Promise<string | null> => {
    const row = await db.selectFrom('session_owner').select('tenant').where('session_id', '=', sessionId).executeTakeFirst();
    return row?.tenant ?? null;
  };

  return {
    backend,
    migrate,
    claim: (sessionId, tenant) =>
      ready('claim', async () => {
        await db
          .insertInto('session_owner')
          .values({ session_id: sessionId, tenant })
          .onConflict((conflict) => conflict.column('session_id').doNothing())
          .execute();
        const owner = await ownerOf(sessionId);
        if (owner === null) throw new Error(`session ${JSON.stringify(sessionId)} has no owner right after it was claimed`);
        return owner;
      }),
    ownerOf: (sessionId) => ready('ownerOf', () => ownerOf(sessionId)),
    sessionsOf: (tenant) =>
      ready('sessionsOf', async () => (await db.selectFrom('session_owner').select('session_id').where('tenant', '=', tenant).orderBy('session_id').execute()).map((row) => row.session_id)),
    isPurged: (tenant) =>
      ready('isPurged', async () => (await db.selectFrom('purged_tenant').select('tenant').where('tenant', '=', tenant).executeTakeFirst()) !== undefined),
    markPurged: (tenant) =>
      ready('markPurged', async () => {
        await db.insertInto('purged_tenant').values({ tenant }).onConflict((conflict) => conflict.column('tenant').doNothing()).execute();
      }),
    readmit: (tenant) =>
      ready('readmit', async () => Number((await db.deleteFrom('purged_tenant').where('tenant', '=', tenant).executeTakeFirst()).numDeletedRows) > 0),
    eraseOwners: (tenant) =>
      ready('eraseOwners', async () => Number((await db.deleteFrom('session_owner').where('tenant', '=', tenant).executeTakeFirst()).numDeletedRows)),
    close: () => db.destroy(),
  };
}
