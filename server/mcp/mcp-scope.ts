import { randomUUID } from 'node:crypto';
import type { RagClient } from '../../client/rag-client';
import { notFound } from '../http/api-failure';
import { findOwnedRun } from '../http/run-access';
import type { TenantDirectory } from '../http/tenant-directory';

/**
 * What a caller of the MCP tools may see. Over stdio the caller is the local user, who sees what the CLI sees; over
 * Streamable HTTP it is the bearer token's tenant, who sees its own sessions, runs and knowledge bases only — and
 * anything else is "not found", exactly as in the HTTP API (server/http/run-access.ts).
 */
export type McpScope = {
  /** The session of a new run: the one named (claimed for the caller), else a default. */
  sessionOf(requested: string | undefined): Promise<string>;
  /** The knowledge base of a run or search (undefined: the worker's default). Throws for one the caller may not use. */
  kbOf(requested: string | undefined): string | undefined;
  /** Throws "not found" unless the caller may see the run. */
  assertRun(runId: string): Promise<void>;
};

/** The local user's scope (`ragtime mcp` over stdio): every run; knowledge bases as `ragtime ask --kb` reads them. */
export function localScope(options: { defaultSession: string; kbOf: (requested: string | undefined) => string | undefined }): McpScope {
  return {
    sessionOf: async (requested) => requested ?? options.defaultSession,
    kbOf: options.kbOf,
    assertRun: async () => undefined,
  };
}

/** A tenant's scope (Streamable HTTP at /mcp): its sessions, its runs, its knowledge bases. */
export function tenantScope(rag: RagClient, tenants: TenantDirectory, tenant: string): McpScope {
  return {
    async sessionOf(requested) {
      const sessionId = requested ?? `mcp-${randomUUID()}`;
      // The first tenant to ask in a session owns it; to everyone else it does not exist.
      if (!(await tenants.claimSession(sessionId, tenant))) throw notFound('session', sessionId);
      return sessionId;
    },
    kbOf(requested) {
      const kb = requested ?? tenants.defaultKbOf(tenant);
      if (!tenants.kbsOf(tenant).includes(kb)) throw notFound('knowledge base', kb);
      return kb;
    },
    async assertRun(runId) {
      await findOwnedRun(rag, tenants, tenant, runId);
    },
  };
}
