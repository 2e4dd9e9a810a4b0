import { SyncPassReport } from '../../core/sync/sync-io';
import { lazyMigratedStore, openSqlDatabase, type SqlBackend, type SqlLocation } from './sql/database';
import { migrateSyncPasses, type SyncPassDatabase } from './sql/sync-pass-schema';

/*
 * The reports of synced sources' passes (issue 46 §1), in the audit store's database (audit.sqlite, or DATABASE_URL):
 * written by the pass's last activity, read by `ragtime sync status`, the HTTP API and MCP. A row per pass, so a
 * source's history outlives Temporal's retention of its workflow runs.
 */

export type SyncPassStore = {
  /** Inserts or replaces the pass's row (idempotent on its workflow id: a retried activity writes it once). */
  record(report: SyncPassReport): Promise<void>;
  /** The latest passes of a source, newest first. */
  passesOf(source: string, limit?: number): Promise<SyncPassReport[]>;
  /** The last pass of every source that has one. */
  lastPasses(): Promise<SyncPassReport[]>;
  /** Removes a source's rows (`ragtime sync rm`). */
  forget(source: string): Promise<number>;
  close(): Promise<void>;
};

export type SqlSyncPassStore = SyncPassStore & { readonly backend: SqlBackend; migrate(): Promise<string[]> };

const STORE = 'sync pass store';

export function createSyncPassStore(location: SqlLocation): SqlSyncPassStore {
  const { db, backend, where } = openSqlDatabase<SyncPassDatabase>(location);
  const { migrate, ready } = lazyMigratedStore(STORE, where, () => migrateSyncPasses(db));
  const parse = (row: { report: string }) => SyncPassReport.parse(JSON.parse(row.report));
  return {
    backend,
    migrate,
    record: (report) =>
      ready('record', async () => {
        const row = { workflow_id: report.workflow_id, source: report.source, kb: report.kb, status: report.status, finished_at: report.finished_at, report: JSON.stringify(report) };
        await db.transaction().execute(async (trx) => {
          await trx.deleteFrom('sync_pass').where('workflow_id', '=', row.workflow_id).execute();
          await trx.insertInto('sync_pass').values(row).execute();
        });
      }),
    passesOf: (source, limit = 10) =>
      ready('passesOf', async () => (await db.selectFrom('sync_pass').select('report').where('source', '=', source).orderBy('finished_at', 'desc').limit(limit).execute()).map(parse)),
    lastPasses: () =>
      ready('lastPasses', async () => {
        const rows = await db.selectFrom('sync_pass').select(['source', 'report', 'finished_at']).orderBy('source').orderBy('finished_at', 'desc').execute();
        const seen = new Set<string>();
        return rows.filter((row) => !seen.has(row.source) && (seen.add(row.source), true)).map(parse);
      }),
    forget: (source) =>
      ready('forget', async () => Number((await db.deleteFrom('sync_pass').where('source', '=', source).executeTakeFirst()).numDeletedRows)),
    close: () => db.destroy(),
  };
}
