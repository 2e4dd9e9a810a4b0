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
    close: () => db.destroy(),
  };
}
