import { newSessionId, type RagClient } from '../../client/rag-client';
import { notFound } from '../http/api-failure';
import { findOwnedRun } from '../http/run-access';
import { RagError } from '../../core/errors';
import { type HiddenDocuments, NOTHING_HIDDEN } from '../../core/knowledge/redact-for-reader';
import { hiddenFor, readerView, visibleTurns } from '../http/reader-view';
import type { KnowledgeApi, SessionTurnReader } from '../http/server-deps';
import type { TenantDirectory } from '../http/tenant-directory';
import { RAG_SESSION_ID } from '../../workflows/search-attributes';

/**
 * What a caller of the MCP tools may see. Over stdio the caller is the local user, who sees what the CLI sees; over
 * Streamable HTTP it is the bearer token's tenant, who sees its own sessions, runs and knowledge bases only — and
 * anything else is "not found", exactly as in the HTTP API (server/http/run-access.ts).
 */
export type McpScope = {
  /** Whose sessions' turns a run reads and records (issue 25 §1); absent over stdio (the CLI's, '' ). */
  tenant?: string;
  /** The session of a new run: the one named (claimed for the caller), else a default. */
  sessionOf(requested: string | undefined): Promise<string>;
  /** The knowledge base of a run or search (undefined: the worker's default). Throws for one the caller may not use. */
  kbOf(requested: string | undefined): string | undefined;
  /** Throws "not found" unless the caller may see the run; resolves to the run's session when it is known. */
  assertRun(runId: string): Promise<string | null>;
  /** The groups of the caller's token (issue 44 §4): every retrieval reads only what they may; absent: everything (stdio). */
  access?: readonly string[];
  /** A value as the caller may see it (issue 44 §4, core/knowledge/redact-for-reader.ts); unchanged over stdio. */
  view<T>(value: T): Promise<T>;
  /** The documents the caller may not read (issue 44 §4), for what is sent piece by piece (progress notifications). */
  hidden(): Promise<HiddenDocuments>;
  /** The session whose audit holds the caller's tool calls that name no run's session (searches, refused calls); null: none. */
  auditSession(): Promise<string | null>;
};

/** The session a run was started in (its RagSessionId search attribute), null when the server does not know the run. */
export async function sessionOfRun(rag: RagClient, runId: string): Promise<string | null> {
  const description = await rag.temporal.workflow.getHandle(runId).describe().catch(() => null);
  return description?.typedSearchAttributes.get(RAG_SESSION_ID) ?? null;
}

/**
 * The local user's scope (`ragtime mcp` over stdio): every run; knowledge bases as `ragtime ask --kb` reads them.
 * With `rag`, a run's session is looked up, so that a refused call on it is audited in the run's session.
 */
export function localScope(options: { defaultSession?: string; kbOf: (requested: string | undefined) => string | undefined; rag?: RagClient }): McpScope {
  const { rag } = options;
  return {
    // A call that names no session, on a server started without one, is a conversation of its own (issue 33 §2).
    sessionOf: async (requested) => requested ?? options.defaultSession ?? newSessionId('mcp'),
    kbOf: options.kbOf,
    assertRun: async (runId) => (rag ? sessionOfRun(rag, runId) : null),
    // Searches and refused calls belong to no conversation: their audit rows sit under the server's session, or 'mcp'.
    auditSession: async () => options.defaultSession ?? 'mcp',
    view: async (value) => value,
    hidden: async () => NOTHING_HIDDEN,
  };
}

/** A tenant's scope (Streamable HTTP at /mcp): its sessions, its runs, its knowledge bases. */
export function tenantScope(
  rag: RagClient,
  tenants: TenantDirectory,
  tenant: string,
  reader: { groups?: readonly string[]; knowledge?: KnowledgeApi; sessionTurns?: SessionTurnReader } = {},
): McpScope {
  const groups = reader.groups ?? [];
  return {
    tenant,
    access: groups,
    view: (value) => readerView(reader.knowledge, tenants, { tenant, groups }, value),
    hidden: () => hiddenFor(reader.knowledge, tenants, { tenant, groups }),
    async sessionOf(requested) {
      const sessionId = requested ?? newSessionId('mcp');
      // The first tenant to ask in a session owns it; to everyone else it does not exist.
      if (!(await tenants.claimSession(sessionId, tenant))) throw notFound('session', sessionId);
      // issue 44 §4: a run reads its session's earlier turns; one holding an answer this token may not see is refused.
      const { sessionTurns } = reader;
      if (sessionTurns && (await visibleTurns({ rag, knowledge: reader.knowledge, tenants, sessionTurns }, { tenant, groups }, sessionId)).withheld > 0) {
        throw new RagError('INVALID_INPUT', `session "${sessionId}" holds answers written from documents this token may not read; ask in a new session`);
      }
      return sessionId;
    },
    kbOf(requested) {
      const kb = requested ?? tenants.defaultKbOf(tenant);
      if (!tenants.kbsOf(tenant).includes(kb)) throw notFound('knowledge base', kb);
      return kb;
    },
    assertRun: async (runId) => (await findOwnedRun(rag, tenants, tenant, runId)).sessionId,
    // One per tenant, read through the Trace API as any session (GET /api/diagnosis/mcp-<tenant>/trace); null if
    // another tenant holds that name.
    auditSession: async () => ((await tenants.claimSession(`mcp-${tenant}`, tenant)) ? `mcp-${tenant}` : null),
  };
}
