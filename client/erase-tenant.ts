import { RagError } from '../core/errors';
import type { KbStats } from '../core/knowledge/knowledge-base';
import { createSessionEraser, type SessionErasure, type SessionEraserDeps } from './erase-session';

/** A knowledge base of the tenant's alone, with what it holds (documents, their parent chunks, the leaves in Milvus). */
export type TenantKnowledgeBase = { kb: string; documents: number; parents: number; leaves: number };

/** What `ragtime tenant purge` would erase, store by store (issue 45 §2): its `--dry-run`, and what it asks about. */
export type TenantInventory = {
  tenant: string;
  /** The sessions it owns (HTTP API, RAGTIME_TENANT) or has turns in. */
  sessions: string[];
  /** Runs of those sessions that Temporal lists (their sub-question children go with them). */
  temporalRuns: number;
  /** Runs still open (running, or waiting for a person): the purge refuses unless told to cancel them. */
  runsInFlight: string[];
  sessionTurns: number;
  auditInvocations: number;
  auditEvents: number;
  answerStreamEvents: number;
  /** Knowledge bases only this tenant's tokens list: dropped whole (collection, parents, documents). */
  knowledgeBases: TenantKnowledgeBase[];
  /** Knowledge bases it shares (another tenant's tokens list them, or the default one): kept. */
  sharedKnowledgeBases: Array<{ kb: string; with: string[] }>;
  /** Its tokens in this process' configuration; every server reading the same database refuses them afterwards. */
  tokens: number;
  sessionOwners: number;
  /** Purged before: its tokens are refused already (a second purge erases what is left). */
  alreadyPurged: boolean;
};

/** What one purge erased. A second purge of the same tenant reports zeros. */
export type TenantErasure = Omit<TenantInventory, 'sessions' | 'runsInFlight' | 'temporalRuns' | 'alreadyPurged'> & {
  sessions: number;
  /** Runs that were open, cancelled (with --cancel-runs) and closed before anything was erased. */
  cancelledRuns: string[];
  /** Executions deleted from Temporal, history and visibility (sub-question children included), seen gone. */
  temporalRuns: number;
  /** Executions whose deletion Temporal accepted but had not carried out when the wait ended. */
  temporalPending: string[];
};

/** The stores the tenant eraser reads and erases (activities/adapters' SQL stores and knowledge stores have these). */
export type TenantEraserDeps = Omit<SessionEraserDeps, 'audit' | 'turns' | 'answerStream'> & {
  audit: SessionEraserDeps['audit'] & { countSessions(sessionIds: readonly string[]): Promise<{ invocations: number; events: number }> };
  turns: SessionEraserDeps['turns'] & { sessionsOf(tenant: string): Promise<string[]>; countOf(tenant: string): Promise<number> };
  answerStream: SessionEraserDeps['answerStream'] & { countRuns(workflowIds: readonly string[]): Promise<number> };
  owners: {
    sessionsOf(tenant: string): Promise<string[]>;
    ownerOf(sessionId: string): Promise<string | null>;
    isPurged(tenant: string): Promise<boolean>;
    markPurged(tenant: string): Promise<void>;
    eraseOwners(tenant: string): Promise<number>;
  };
  knowledge: { stats(kb: string): Promise<KbStats>; drop(kb: string): Promise<void> };
  /** The tenant's knowledge bases: its own (dropped) and those it shares (kept); core's tenantKnowledgeBases. */
  knowledgeBasesOf(tenant: string): { own: string[]; shared: Array<{ kb: string; with: string[] }> };
  /** How many of its tokens this process' configuration holds. */
  tokensOf(tenant: string): number;
};

/** The refusal of a purge while runs of the tenant are open (nothing is erased). */
export function runsInFlightRefusal(tenant: string, runs: readonly string[]): RagError {
  const them = runs.length === 1 ? 'it' : 'them';
  return new RagError(
    'INVALID_INPUT',
    `tenant ${JSON.stringify(tenant)} has ${runs.length} run${runs.length === 1 ? '' : 's'} in flight (${runs.slice(0, 5).join(', ')}${runs.length > 5 ? ', …' : ''}); ` +
      `nothing was erased: wait until ${runs.length === 1 ? 'it ends' : 'they end'}, or pass --cancel-runs to cancel ${them} first`,
  );
}

const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

// Sessions erased side by side: each waits for Temporal to carry out its deletions (seconds on a dev server).
const SESSIONS_AT_ONCE = 4;

async function eachAtMost<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * Erases a tenant from every store (issue 45 §2): its sessions as `sessions rm` erases one (Temporal histories and
 * visibility, turns, audit and diagnosis rows, streamed answers), the knowledge bases that are its alone (Milvus
 * collection, parent chunks, documents), its session owner rows, and its tokens: the tenant is recorded as purged in
 * the database every `ragtime serve` reads, which refuses its tokens from then on (they are configuration, which a
 * command cannot change). A session another tenant owns loses only this tenant's turns; a shared knowledge base is
 * kept. Refuses, changing nothing, while a run of the tenant is open, unless `cancelRuns`.
 *
 * @example
 * const eraser = createTenantEraser({ temporal: rag.temporal, audit, turns, answerStream, owners, knowledge, knowledgeBasesOf, tokensOf });
 * console.log(await eraser.inventory('acme')); // the counts, nothing erased
 * await eraser.erase('acme', { cancelRuns: true });
 */
export function createTenantEraser(deps: TenantEraserDeps) {
  const { temporal, audit, turns, answerStream, owners, knowledge } = deps;
  const sessionEraser = createSessionEraser(deps);

  async function sessionsOf(tenant: string): Promise<string[]> {
    return [...new Set([...(await owners.sessionsOf(tenant)), ...(await turns.sessionsOf(tenant))])].sort();
  }

  /** Every run of the sessions, and which of them are open, from Temporal's visibility (by RagSessionId). */
  async function runsOf(sessions: readonly string[]): Promise<{ all: string[]; open: string[] }> {
    const all: string[] = [];
    const open: string[] = [];
    for (const sessionId of sessions) {
      for await (const run of temporal.workflow.list({ query: `RagSessionId = ${quote(sessionId)}` })) {
        all.push(run.workflowId);
        if (run.status.name === 'RUNNING') open.push(run.workflowId);
      }
    }
    return { all, open };
  }

  /** The tenant's own knowledge bases that exist, with their counts (one dropped already, or never made, is left out). */
  async function ownKnowledgeBases(tenant: string): Promise<TenantKnowledgeBase[]> {
    const found: TenantKnowledgeBase[] = [];
    for (const kb of deps.knowledgeBasesOf(tenant).own) {
      const stats = await knowledge.stats(kb).catch((error: unknown) => (error instanceof RagError && error.code === 'UNKNOWN_KB' ? null : Promise.reject(error)));
      if (stats) found.push({ kb, documents: stats.documents, parents: stats.chunks.l1 + stats.chunks.l2, leaves: stats.chunks.l3 });
    }
    return found;
  }

  /** Sessions the tenant has turns in but another tenant owns: only its turns go there. */
  async function foreignOf(tenant: string, sessions: readonly string[]): Promise<Set<string>> {
    const owned = await Promise.all(sessions.map(async (sessionId) => ({ sessionId, owner: await owners.ownerOf(sessionId) })));
    return new Set(owned.filter(({ owner }) => owner !== null && owner !== tenant).map(({ sessionId }) => sessionId));
  }

  async function inventory(tenant: string): Promise<TenantInventory> {
    const sessions = await sessionsOf(tenant);
    const foreign = await foreignOf(tenant, sessions);
    const own = sessions.filter((sessionId) => !foreign.has(sessionId));
    const runs = await runsOf(own);
    const rows = await audit.countSessions(own);
    return {
      tenant,
      sessions,
      temporalRuns: runs.all.length,
      runsInFlight: runs.open,
      sessionTurns: await turns.countOf(tenant),
      auditInvocations: rows.invocations,
      auditEvents: rows.events,
      answerStreamEvents: await answerStream.countRuns(runs.all),
      knowledgeBases: await ownKnowledgeBases(tenant),
      sharedKnowledgeBases: deps.knowledgeBasesOf(tenant).shared,
      tokens: deps.tokensOf(tenant),
      sessionOwners: (await owners.sessionsOf(tenant)).length,
      alreadyPurged: await owners.isPurged(tenant),
    };
  }

  return {
    /** What a purge would erase now; changes nothing. */
    inventory,

    /**
     * Erases the tenant. RagError INVALID_INPUT (nothing changed) while one of its runs is open and `cancelRuns` is
     * not set; with it, those runs are cancelled and waited for first, as `sessions rm` does.
     */
    async erase(tenant: string, options: { cancelRuns: boolean }): Promise<TenantErasure> {
      const before = await inventory(tenant);
      if (before.runsInFlight.length > 0 && !options.cancelRuns) throw runsInFlightRefusal(tenant, before.runsInFlight);
      // First, so that no new run or session of the tenant starts through the API while the rest is erased.
      await owners.markPurged(tenant);
      // Listed again: a session may have started between the inventory and the mark.
      const sessions = await sessionsOf(tenant);
      const foreign = await foreignOf(tenant, sessions);
      const erasures: SessionErasure[] = await eachAtMost(sessions.filter((sessionId) => !foreign.has(sessionId)), SESSIONS_AT_ONCE, (sessionId) => sessionEraser.erase(sessionId, tenant));
      let foreignTurns = 0;
      for (const sessionId of foreign) foreignTurns += (await turns.eraseSession(sessionId, tenant)).turns;
      const knowledgeBases = await ownKnowledgeBases(tenant);
      for (const { kb } of knowledgeBases) await knowledge.drop(kb);
      const sum = (pick: (erasure: SessionErasure) => number) => erasures.reduce((total, erasure) => total + pick(erasure), 0);
      return {
        tenant,
        sessions: sessions.length,
        cancelledRuns: erasures.flatMap((erasure) => erasure.cancelledRuns),
        temporalRuns: sum((erasure) => erasure.temporalRuns),
        temporalPending: erasures.flatMap((erasure) => erasure.temporalPending),
        sessionTurns: sum((erasure) => erasure.sessionTurns) + foreignTurns,
        auditInvocations: sum((erasure) => erasure.auditInvocations),
        auditEvents: sum((erasure) => erasure.auditEvents),
        answerStreamEvents: sum((erasure) => erasure.answerStreamEvents),
        knowledgeBases,
        sharedKnowledgeBases: before.sharedKnowledgeBases,
        tokens: deps.tokensOf(tenant),
        sessionOwners: await owners.eraseOwners(tenant),
      };
    },
  };
}

export type TenantEraser = ReturnType<typeof createTenantEraser>;
