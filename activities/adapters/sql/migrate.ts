import type { Kysely } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';

/**
 * Brings one store's schema to its latest version: idempotent, and concurrent callers wait on kysely's migration lock.
 * Each store keeps its own bookkeeping tables, so the stores that share a database migrate apart.
 * Resolves to the names of the migrations applied now.
 */
export async function migrateToLatest(
  db: Kysely<unknown>,
  migrations: Record<string, Migration>,
  tables: { migrations: string; lock: string },
): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: tables.migrations,
    migrationLockTableName: tables.lock,
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
