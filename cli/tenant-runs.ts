import type { RagConfig } from '../core/config';
import { RagError } from '../core/errors';
import type { CliHost, SessionOwners } from './host';

/**
 * The tenant of the runs `ragtime ask` and `chat` start (RAGTIME_TENANT; issue 45 §3), made theirs as the HTTP API
 * makes a caller's: a session is claimed for the tenant before its first run starts, and each run carries the tenant,
 * so its turns are kept under it. The console signed in as that tenant then shows the runs (`make demo` records its
 * console's tenant, "demo", in the settings file), while any other tenant's token still gets NOT_FOUND for them. A
 * session another tenant owns is refused before anything starts (exit 2), and so is every run of a purged tenant
 * (`ragtime tenant purge`, issue 45 §2). Without RAGTIME_TENANT nothing changes:
 * the runs belong to no tenant ('') and no session is claimed.
 */
export type TenantRuns = {
  /** RAGTIME_TENANT, or null. */
  tenant: string | null;
  /** What `RagClient.ask` is given: `{ tenant }`, or nothing without one. */
  askOptions: { tenant?: string };
  /** Claims the session for the tenant (once per session); refuses one another tenant owns. Nothing without a tenant. */
  claim(sessionId: string): Promise<void>;
  close(): Promise<void>;
};

/** The refusal of a session another tenant owns; null when `tenant` owns it. */
export function foreignSessionRefusal(sessionId: string, tenant: string, owner: string): RagError | null {
  if (owner === tenant) return null;
  return new RagError(
    'INVALID_INPUT',
    `session ${JSON.stringify(sessionId)} belongs to another tenant than RAGTIME_TENANT ${JSON.stringify(tenant)}; nothing was started: continue one of its own sessions, or leave out --session for a new one`,
  );
}

export function tenantRuns(config: RagConfig, host: Pick<CliHost, 'openSessionOwners'>): TenantRuns {
  const { tenant } = config;
  if (tenant === null) return { tenant, askOptions: {}, claim: async () => undefined, close: async () => undefined };
  // Opened on the first claim: the SQL store's driver loads only when a run is about to start.
  let owners: SessionOwners | null = null;
  const claimed = new Set<string>();
  return {
    tenant,
    askOptions: { tenant },
    async claim(sessionId) {
      if (claimed.has(sessionId)) return;
      owners ??= host.openSessionOwners(config);
      // A purged tenant's tokens are refused (issue 45 §2); its runs from this shell are too.
      if (await owners.isPurged?.(tenant)) {
        throw new RagError('INVALID_INPUT', `RAGTIME_TENANT ${JSON.stringify(tenant)} was purged (ragtime tenant purge); nothing was started: unset RAGTIME_TENANT, or \`ragtime tenant readmit ${tenant}\` first`);
      }
      const refusal = foreignSessionRefusal(sessionId, tenant, await owners.claim(sessionId, tenant));
      if (refusal) throw refusal;
      claimed.add(sessionId);
    },
    close: async () => {
      await owners?.close();
      owners = null;
    },
  };
}
