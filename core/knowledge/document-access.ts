import { z } from 'zod';
import type { FilterClause } from '../retrieval/metadata-filter';
import { type DocumentMeta, MetaValue } from './document-meta';
import type { DocumentRecord, KbStats } from './knowledge-base';

/*
 * Permissions on documents (issue 44 §4). A document may carry an access list: the metadata key `acl` (ingest --acl
 * a,b, or `acl:` in Markdown front matter). An API token carries groups. A token reads a document when the document
 * has no access list, or when the token holds one of its groups. Retrieval applies this as a *forced* clause (ANDed
 * after the caller's filters, so a caller's `acl=…` filter can only narrow); every read of a run is redacted with it
 * (core/knowledge/redact-for-reader.ts).
 */

/** The metadata key that holds a document's access list. */
export const ACL_KEY = 'acl';

/** A token's groups: 1–256 characters each (a metadata value), at most 64. */
export const AccessGroups = z.array(MetaValue).max(64);
export type AccessGroups = z.infer<typeof AccessGroups>;

/** The forced clause of a retrieval for a reader with these groups: its groups, or a document without an access list. */
export function accessClause(groups: readonly string[]): FilterClause {
  return { key: ACL_KEY, anyOf: [...groups], orMissing: true };
}

/** A document's access list; empty when it has none (readable by every token of its tenant). */
export function aclOf(meta: DocumentMeta | undefined): readonly string[] {
  return meta?.[ACL_KEY] ?? [];
}

/** Whether a reader with these groups may read a document with this access list. */
export function mayRead(groups: readonly string[], acl: readonly string[]): boolean {
  return acl.length === 0 || acl.some((group) => groups.includes(group));
}

/** What a reader is allowed: `all` (the operator's CLI, no token) or the groups of its token. */
export type Reader = { kind: 'all' } | { kind: 'groups'; groups: readonly string[] };

/** The documents among these that a reader with these groups may not read. */
export function unreadable<D extends { meta?: DocumentMeta }>(groups: readonly string[], documents: readonly D[]): D[] {
  return documents.filter((document) => !mayRead(groups, aclOf(document.meta)));
}

/** A knowledge base's stats without the documents a reader may not read: their documents, chunks and bytes. */
export function visibleStats(stats: KbStats, hidden: readonly DocumentRecord[]): KbStats {
  if (hidden.length === 0) return stats;
  const less = (total: number, pick: (document: DocumentRecord) => number) => Math.max(0, hidden.reduce((left, document) => left - pick(document), total));
  return {
    ...stats,
    documents: less(stats.documents, () => 1),
    chunks: { l1: less(stats.chunks.l1, (d) => d.l1), l2: less(stats.chunks.l2, (d) => d.l2), l3: less(stats.chunks.l3, (d) => d.l3) },
    bytes: less(stats.bytes, (d) => d.bytes),
  };
}
