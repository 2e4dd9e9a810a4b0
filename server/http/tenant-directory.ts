import type { PurgedTenants, SessionOwnerStore } from '../../activities/adapters/sql-session-owners';
import type { ApiToken } from '../../core/schemas/api-tokens';
import { createTokenMatcher, createTokenVerifier } from './token-auth';

/**
 * Who is calling and what they may see: tenants by bearer token, and sessions by the tenant that created them.
 *
 * @example
 * const tenants = createTenantDirectory({ tokens: config.api.tokens, owners: createSessionOwnerStore(location), defaultKb: 'manuals' });
 * tenants.tenantOf(token); // 'acme' or null
 */
export type TenantDirectory = {
  /** The tenant a bearer token belongs to; null for an unknown token (compared in constant time). */
  tenantOf(token: string): string | null;
  /** The groups of a bearer token (issue 44 §4): [] for an entry without groups or an unknown token. */
  groupsOf(token: string): string[];
  /**
   * True for a tenant `ragtime tenant purge` erased (issue 45 §2): its tokens are still configured, but refused. Read
   * from the database at every call, so a purge by another process takes effect at the next request.
   */
  isPurged(tenant: string): Promise<boolean>;
  /** Claims a session for the tenant if it is new; true when the tenant owns it (now or before), false otherwise. */
  claimSession(sessionId: string, tenant: string): Promise<boolean>;
  /** True only when the tenant created the session: unknown sessions and other tenants' ones alike are false. */
  ownsSession(sessionId: string, tenant: string): Promise<boolean>;
  /** True for one of the operator's tokens (RAGTIME_API_OPERATOR_TOKENS; compared in constant time): not a tenant's. */
  isOperator(token: string): boolean;
  /** How many tokens are configured (for the start-up line; never the tokens). */
  readonly tokenCount: number;
  /**
   * The knowledge bases the tenant may use (DESIGN §4b): those its tokens list, else the default one. Any other is
   * "not found" to it, as another tenant's run is.
   */
  kbsOf(tenant: string): string[];
  /** The tenant's knowledge base when a request names none: the default if it may use it, else its first. */
  defaultKbOf(tenant: string): string;
};

export function createTenantDirectory({
  tokens,
  operatorTokens = [],
  owners,
  purged,
  defaultKb,
}: {
  tokens: readonly ApiToken[];
  /** Digests of the operator's tokens (issue 35 §3). */
  operatorTokens?: readonly string[];
  owners: SessionOwnerStore;
  /** The purged tenants (the session owner store keeps them); none when absent. */
  purged?: PurgedTenants;
  defaultKb: string;
}): TenantDirectory {
  const verify = createTokenVerifier(tokens);
  const match = createTokenMatcher(tokens);
  const verifyOperator = createTokenVerifier(operatorTokens.map((sha256) => ({ tenant: 'operator', sha256 })));
  const kbsOf = (tenant: string): string[] => {
    const listed = [...new Set(tokens.filter((token) => token.tenant === tenant).flatMap((token) => token.kbs ?? []))];
    return listed.length > 0 ? listed : [defaultKb];
  };
  return {
    kbsOf,
    defaultKbOf: (tenant) => {
      const kbs = kbsOf(tenant);
      return kbs.includes(defaultKb) ? defaultKb : (kbs[0] as string);
    },
    tenantOf: verify,
    groupsOf: (token) => [...(match(token)?.groups ?? [])],
    isPurged: (tenant) => purged?.isPurged(tenant) ?? Promise.resolve(false),
    isOperator: (token) => verifyOperator(token) !== null,
    claimSession: async (sessionId, tenant) => (await owners.claim(sessionId, tenant)) === tenant,
    ownsSession: async (sessionId, tenant) => (await owners.ownerOf(sessionId)) === tenant,
    tokenCount: tokens.length,
  };
}
