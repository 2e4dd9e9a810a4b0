/**
 * The tenant of the CLI's runs (issue 45 §3): with RAGTIME_TENANT (which `make demo` records in the settings file as
 * its console's tenant, "demo"), `ragtime ask` and `chat` claim their session for it in the session owners the API
 * reads, and the run carries it, so the console signed in as that tenant opens the run; another tenant's token still
 * finds nothing (server/http/run-access.ts asks the same owners). No services: the session owners on a SQLite file
 * in a data dir of its own, as `ragtime serve` keeps them in audit.sqlite (bin/main.ts opens them the same way).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createSessionOwnerStore } from '../../../activities/adapters/sql-session-owners';
import { reportError } from '../../../cli/errors';
import { tenantRuns } from '../../../cli/tenant-runs';
import { parseConfig, type RagConfig } from '../../../core/config';
import { isRagError } from '../../../core/errors';
import { auditSqliteFileOf } from '../../../runtime/data-files';
import { createTenantDirectory } from '../../../server/http/tenant-directory';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-tenant-runs-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const location = () => ({ sqliteFile: path.join(dataDir, 'audit.sqlite') });
let opened = 0;
const host = {
  openSessionOwners: (config: RagConfig) => {
    opened += 1;
    const owners = createSessionOwnerStore({ sqliteFile: auditSqliteFileOf(config) });
    return { claim: (sessionId: string, tenant: string) => owners.claim(sessionId, tenant), isPurged: (tenant: string) => owners.isPurged(tenant), close: () => owners.close() };
  },
};
const configWith = (env: Record<string, string>) => parseConfig({ RAGTIME_DATA_DIR: dataDir, ...env });

/** The API's view of the session: whom it belongs to (findOwnedRun answers NOT_FOUND to everyone else). */
async function apiOwns(sessionId: string, tenant: string): Promise<boolean> {
  const owners = createSessionOwnerStore(location());
  try {
    return await createTenantDirectory({ tokens: [], owners, defaultKb: 'kb' }).ownsSession(sessionId, tenant);
  } finally {
    await owners.close();
  }
}

test('issue 45 §3 RAGTIME_TENANT=demo: the run carries the tenant, its session is claimed for it, and only that tenant\'s token reads it', async () => {
  const runs = tenantRuns(configWith({ RAGTIME_TENANT: 'demo' }), host);
  expect([runs.tenant, runs.askOptions]).toEqual(['demo', { tenant: 'demo' }]);
  await runs.claim('ask-0123456789ab');
  await runs.claim('ask-0123456789ab'); // a chat's second question in the session: claimed once
  await runs.close();
  expect(opened).toBe(1);
  expect(await apiOwns('ask-0123456789ab', 'demo')).toBe(true);
  expect(await apiOwns('ask-0123456789ab', 'acme')).toBe(false);
});

test('a session another tenant owns is refused before anything starts, exit 2', async () => {
  const owners = createSessionOwnerStore(location());
  await owners.claim('acme-conversation', 'acme');
  await owners.close();
  const runs = tenantRuns(configWith({ RAGTIME_TENANT: 'demo' }), host);
  let refused: unknown = null;
  await runs.claim('acme-conversation').catch((error: unknown) => (refused = error));
  await runs.close();
  if (!isRagError(refused)) throw new Error('the session of another tenant was not refused');
  expect(refused.message).toBe(
    'session "acme-conversation" belongs to another tenant than RAGTIME_TENANT "demo"; nothing was started: continue one of its own sessions, or leave out --session for a new one',
  );
  const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  expect(reportError(refused, false)).toBe(2);
  errors.mockRestore();
  expect(await apiOwns('acme-conversation', 'acme')).toBe(true);
});

test('no RAGTIME_TENANT: runs of no tenant, as before; no session is claimed and the owners are never opened', async () => {
  opened = 0;
  const runs = tenantRuns(configWith({}), host);
  expect([runs.tenant, runs.askOptions]).toEqual([null, {}]);
  await runs.claim('ask-ffffffffffff');
  await runs.close();
  expect(opened).toBe(0);
  expect(await apiOwns('ask-ffffffffffff', 'demo')).toBe(false);
});

test('issue 45 §2 a purged RAGTIME_TENANT starts nothing (exit 2) and claims nothing, until it is readmitted', async () => {
  const owners = createSessionOwnerStore(location());
  await owners.markPurged('gone');
  const runs = tenantRuns(configWith({ RAGTIME_TENANT: 'gone' }), host);
  let refused: unknown = null;
  await runs.claim('gone-conversation').catch((error: unknown) => (refused = error));
  expect(isRagError(refused) ? [refused.code, refused.message] : refused).toEqual([
    'INVALID_INPUT',
    'RAGTIME_TENANT "gone" was purged (ragtime tenant purge); nothing was started: unset RAGTIME_TENANT, or `ragtime tenant readmit gone` first',
  ]);
  expect(await owners.ownerOf('gone-conversation')).toBeNull();
  await owners.readmit('gone');
  await runs.claim('gone-conversation');
  expect(await owners.ownerOf('gone-conversation')).toBe('gone');
  await Promise.all([runs.close(), owners.close()]);
});
