import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { Client as PgClient } from 'pg';

/*
 * The erasure tests' reading of the SQL stores (issue 35 §2, issue 45 §2): every row of every table, of a PostgreSQL
 * database or of SQLite files, matched against needles (a session id, a question, a run's id, a tenant's name). A
 * store the erasure forgets leaves rows this finds, whatever its table is called.
 */

export type SqlPlace = { databaseUrl?: string | undefined; sqliteFiles: string[] };

/** Rows of every table whose text holds one of `needles`, counted per table (tables with none left out). */
export async function rowsHolding(place: SqlPlace, needles: string[]): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  const note = (table: string, row: unknown) => {
    const text = JSON.stringify(row);
    if (needles.some((needle) => text.includes(needle))) found[table] = (found[table] ?? 0) + 1;
  };
  if (place.databaseUrl) {
    const pg = new PgClient({ connectionString: place.databaseUrl });
    await pg.connect();
    try {
      const tables = (await pg.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).rows.map((row) => row.table_name);
      for (const table of tables) {
        const patterns = needles.map((needle) => `%${needle}%`);
        const rows = await pg.query(`SELECT * FROM "${table}" AS r WHERE r::text LIKE ANY($1)`, [patterns]);
        for (const row of rows.rows) note(table, row);
      }
    } finally {
      await pg.end();
    }
    return found;
  }
  for (const file of place.sqliteFiles.filter((candidate) => existsSync(candidate))) {
    const db = new Database(file, { readonly: true });
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((row) => row.name);
      for (const table of tables) for (const row of db.prepare(`SELECT * FROM "${table}"`).all()) note(table, row);
    } finally {
      db.close();
    }
  }
  return found;
}

/** Reads until `done` says so or `ms` have passed; the last reading either way (Temporal deletes asynchronously). */
export async function within<T>(ms: number, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
