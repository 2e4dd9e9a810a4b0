import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { Pool } from 'pg';
import { RagError } from '../../../core/errors';

/*
 * One SQL connection for ragtime's stores (DESIGN §6 "SQL store"): a SQLite file by default, PostgreSQL when a
 * database URL is given. kysely builds the same queries for both, so the stores and their migrations are written once.
 */

export type SqlBackend = 'sqlite' | 'postgres';

export type SqlLocation = {
  /** PostgreSQL connection string (DATABASE_URL); when set, `sqliteFile` is not used. */
  databaseUrl?: string | undefined;
  /** SQLite database file (created with its folder when missing); ':memory:' for a private in-memory database. */
  sqliteFile: string;
};

export type SqlDatabase<DB> = {
  db: Kysely<DB>;
  backend: SqlBackend;
  /** For messages: the SQLite file, or the PostgreSQL URL without its password. */
  where: string;
};

// A writer waits this long for another process's write lock (a worker and the CLI may share one file).
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/** Hides the password of a connection URL. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@\s]*):[^@/\s]*@/, '//$1:***@');
}

export function openSqlDatabase<DB>({ databaseUrl, sqliteFile }: SqlLocation): SqlDatabase<DB> {
  if (databaseUrl !== undefined && databaseUrl.trim() !== '') {
    const pool = new Pool({ connectionString: databaseUrl, max: 10 });
    // An idle pooled client whose server went away emits 'error' on the pool; unhandled, that would end the
    // process. The next query reports the failure (and retrieval degrades per spec §6.1), so nothing is lost here.
    pool.on('error', () => undefined);
    return { db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), backend: 'postgres', where: redactUrl(databaseUrl) };
  }
  if (sqliteFile !== ':memory:') mkdirSync(dirname(sqliteFile), { recursive: true });
  const sqlite = new Database(sqliteFile, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  if (sqliteFile !== ':memory:') sqlite.pragma('journal_mode = WAL');
  return { db: new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) }), backend: 'sqlite', where: sqliteFile };
}

const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
const UNAVAILABLE_SQLITE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR']);

/** True for errors that say the database could not be reached or was busy (a retry may succeed). */
function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return /connection terminated|timeout exceeded when trying to connect/i.test(String(error));
  // PostgreSQL SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, ...).
  return UNAVAILABLE_ERRNO.has(code) || UNAVAILABLE_SQLITE.has(code) || /^08|^57P/.test(code);
}

/**
 * Runs one store operation and wraps a failure in a RagError naming the store, the operation and the database:
 * SERVICE_UNAVAILABLE when the database could not be reached (or was busy), INTERNAL otherwise. Both are retryable
 * for Temporal; the original error is kept as `cause`.
 */
export async function sqlCall<T>(store: string, where: string, operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RagError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const code = isUnavailable(error) ? 'SERVICE_UNAVAILABLE' : 'INTERNAL';
    throw new RagError(code, `${store} ${operation} failed (${where}): ${message}`, { cause: error });
  }
}

/**
 * A store's migrations, run lazily: `migrate()` runs them once (a failed attempt is forgotten, so the next operation
 * tries again, e.g. once PostgreSQL is back); `ready(operation, run)` migrates first, then runs the operation through
 * sqlCall.
 */
export function lazyMigratedStore(store: string, where: string, runMigrations: () => Promise<string[]>) {
  const call = <T>(operation: string, run: () => Promise<T>) => sqlCall(store, where, operation, run);
  let migrated: Promise<string[]> | undefined;
  const migrate = (): Promise<string[]> => {
    migrated ??= call('migration', runMigrations).catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };
  const ready = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    await migrate();
    return call(operation, run);
  };
  return { migrate, ready };
}
