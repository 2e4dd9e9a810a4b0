import { type HiddenDocuments, NOTHING_HIDDEN, hiddenDocuments, redactForReader } from '../../core/knowledge/redact-for-reader';
import type { RagClient } from '../../client/rag-client';
import type { SessionTurn } from '../../core/schemas/conversation';
import type { KnowledgeApi, SessionTurnReader } from './server-deps';
import type { TenantDirectory } from './tenant-directory';

/** A reader: the tenant and the groups of its bearer token (issue 44 §4). */
export type ReaderId = { tenant: string; groups: readonly string[] };

/**
 * The documents a reader may not read, among those of the knowledge bases its tenant may use (their records carry
 * each document's access list). Every read of the API and MCP redacts what it returns with it
 * (core/knowledge/redact-for-reader.ts). A server started without the knowledge stores has no access lists to read:
 * nothing is hidden there (`ragtime serve` always opens them).
 */
export async function hiddenFor(knowledge: KnowledgeApi | undefined, tenants: TenantDirectory, reader: ReaderId): Promise<HiddenDocuments> {
  if (!knowledge) return NOTHING_HIDDEN;
  const existing = new Set(await knowledge.list());
  const kbs = tenants.kbsOf(reader.tenant).filter((kb) => existing.has(kb));
  const documents = (await Promise.all(kbs.map((kb) => knowledge.documents.list(kb)))).flat();
  return hiddenDocuments(reader.groups, documents);
}

/** A value as the reader may see it: hiddenFor, then redactForReader. */
export async function readerView<T>(knowledge: KnowledgeApi | undefined, tenants: TenantDirectory, reader: ReaderId, value: T): Promise<T> {
  return redactForReader(value, await hiddenFor(knowledge, tenants, reader));
}

/**
 * A session's turns as the reader may see them: a turn's answer written from evidence it may not read is null (its
 * run's outcome says so; a run no longer readable counts as such), and the rest redacted. `withheld`: how many.
 */
export async function visibleTurns(
  deps: { rag: RagClient; knowledge: KnowledgeApi | undefined; tenants: TenantDirectory; sessionTurns: SessionTurnReader },
  reader: ReaderId,
  sessionId: string,
): Promise<{ turns: SessionTurn[]; withheld: number }> {
  const turns = await deps.sessionTurns.turnsOf(reader.tenant, sessionId);
  // A new session has nothing to withhold: its first question needs neither Milvus nor the document registry.
  if (turns.length === 0) return { turns, withheld: 0 };
  const hidden = await hiddenFor(deps.knowledge, deps.tenants, reader);
  if (hidden.refs.length === 0) return { turns, withheld: 0 };
  let withheld = 0;
  const visible = await Promise.all(
    turns.map(async (turn) => {
      if (turn.answer === null) return turn;
      const outcome = await deps.rag.getOutcome(turn.workflowId).catch(() => null);
      if (outcome !== null && redactForReader(outcome, hidden).answer_null_reason !== 'not_visible') return turn;
      withheld += 1;
      return { ...turn, answer: null };
    }),
  );
  return { turns: redactForReader(visible, hidden), withheld };
}
