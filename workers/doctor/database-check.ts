import { mkdtemp, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from 'pg';
import type { RagConfig } from '../../core/config';
import type { CheckSpec } from './check-runner';
import { isUnreachable, oneLine, reasonOf } from './failure-text';

/** host:port/database of a PostgreSQL URL: where it is, without user or password. */
function postgresTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `PostgreSQL ${parsed.host || 'localhost'}${parsed.pathname}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

/** PostgreSQL (DATABASE_URL): connect and `select 1`, each bounded by the check's time. */
function postgresCheck(url: string, timeoutMs: number): CheckSpec {
  const target = postgresTarget(url);
  return {
    kind: 'database',
    target,
    timeoutMs,
    async run(signal) {
      const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
      client.on('error', () => undefined); // a server that goes away later must not end the process
      signal.addEventListener('abort', () => void client.end().catch(() => undefined), { once: true });
      try {
        await client.connect();
        await client.query('select 1');
        return { detail: 'select 1 answered' };
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    failure(error) {
      const code = (error as { code?: unknown }).code;
      if (code === '28P01' || code === '28000') return `${target} refused the login (${oneLine(reasonOf(error))}): check the user and password in DATABASE_URL`;
      if (code === '3D000') return `${target}: ${oneLine(reasonOf(error))}: create the database or fix its name in DATABASE_URL`;
      if (isUnreachable(error)) return `${target} is unreachable (${reasonOf(error)}): check DATABASE_URL and that PostgreSQL runs there (the local one: \`npx ragtime services up postgres\`)`;
      return `${target} failed (${oneLine(reasonOf(error))}): check DATABASE_URL`;
    },
  };
}

/** The nearest folder of `dir` that exists (itself, or an ancestor). */
async function nearestExisting(dir: string): Promise<string> {
  for (let current = dir; ; current = path.dirname(current)) {
    const found = await stat(current).catch(() => null);
    if (found?.isDirectory()) return current;
    if (path.dirname(current) === current) return current;
  }
}

/**
 * The SQLite files' folder (RAGTIME_DATA_DIR): a folder is made in it and removed, since permission bits do not tell
 * about read-only mounts (or anything, to root); one that does not exist yet is fine when the folder it would be
 * made in takes the same test.
 */
function sqliteCheck(dataDir: string, timeoutMs: number): CheckSpec {
  const folder = path.resolve(dataDir);
  return {
    kind: 'database',
    target: `SQLite in ${folder}`,
    timeoutMs,
    async run() {
      const existing = await nearestExisting(folder);
      await rm(await mkdtemp(path.join(existing, '.ragtime-doctor-')), { recursive: true });
      if (existing !== folder) return { detail: `the folder does not exist yet; ragtime creates it in ${existing}, which is writable` };
      return { detail: 'the folder of ragtime.sqlite and audit.sqlite is writable' };
    },
    failure: (error) => `cannot write in ${folder} (${oneLine(reasonOf(error))}): make it writable, or set RAGTIME_DATA_DIR to a writable folder (or DATABASE_URL)`,
  };
}

/** The database of the parent store, documents and audit: PostgreSQL when DATABASE_URL is set, else SQLite files. */
export function databaseCheck(settings: RagConfig['database'], timeoutMs: number): CheckSpec {
  return settings.url ? postgresCheck(settings.url, timeoutMs) : sqliteCheck(settings.dataDir, timeoutMs);
}
