import type { DocumentRecord } from '../../core/knowledge/knowledge-base';
import { DOC_ID_KEY } from '../../core/knowledge/document-meta';
import { documentPasses, type FilterClause } from '../../core/retrieval/metadata-filter';
import type { LeafStore } from '../ports';

/*
 * How a filtered retrieval searches (issue 44 §2). Milvus Lite 3.2.2 evaluates a JSON condition row by row: at 10k
 * leaves `json_contains_any(meta["product"], [...])` made each search take about 1 s (a declared JSON or ARRAY field
 * was no faster; ARRAY takes no scalar index there), while `file_path in [<125 ids>]` took 28 ms — less than no filter
 * (160 ms), as it prunes (measured on this machine, docs/PERFORMANCE.md). So the metadata clauses are decided on the
 * document registry (each document's metadata, read from the SQL store), and both searches get the documents that
 * pass as `file_path in [...]`: still a filter inside each search, never after it. Without a registry, or when more
 * documents pass than one expression should list, the clauses go to Milvus as JSON conditions (right, slower).
 */

/** The documents of the knowledge base with their metadata (the registry's records). */
export type DocumentMetas = { list(): Promise<ReadonlyArray<Pick<DocumentRecord, 'doc_id' | 'meta'>>> };

/** At most this many document ids go into one search expression; past it the JSON conditions are used. */
export const MAX_FILTER_IDS = 4096;
/** Leaves read to count the documents a JSON condition leaves (Milvus' limit for one query). */
const FILTER_COUNT_LIMIT = 16_384;

export type FilterLeft = { filter_documents: number | null; filter_note: 'no_metadata' | 'no_match' | null };

export type FilterPlan = {
  /** What both searches get. */
  search: { filter?: readonly FilterClause[] };
  /** No document passes: nothing to search. */
  nothingPasses: boolean;
  /** For the diagnostics: the documents the filter left, and why none when it left none. */
  left: FilterLeft;
};

/** The documents a JSON condition leaves, read from Milvus; never throws (a store that cannot tell gives nulls). */
async function leftInStore(store: LeafStore, clauses: readonly FilterClause[]): Promise<FilterLeft> {
  try {
    const passing = await store.documentsPassing?.(clauses, FILTER_COUNT_LIMIT);
    if (passing === undefined) return { filter_documents: null, filter_note: null };
    if (passing.length > 0) return { filter_documents: passing.length, filter_note: null };
    const withMeta = await store.countLeavesWithMeta?.();
    return { filter_documents: 0, filter_note: withMeta === 0 ? 'no_metadata' : 'no_match' };
  } catch {
    return { filter_documents: null, filter_note: null };
  }
}

/** Reads the registry when a clause is about metadata; `doc_id` clauses alone go to Milvus as they are. */
export async function planFilter(clauses: readonly FilterClause[], store: LeafStore, documents?: DocumentMetas): Promise<FilterPlan> {
  const inStore = async (): Promise<FilterPlan> => ({ search: { filter: clauses }, nothingPasses: false, left: await leftInStore(store, clauses) });
  if (!documents || clauses.every((clause) => clause.key === DOC_ID_KEY)) return inStore();
  let records: Awaited<ReturnType<DocumentMetas['list']>>;
  try {
    records = await documents.list();
  } catch {
    return inStore(); // the SQL store is down: Milvus can still decide
  }
  const passing = records.filter((record) => documentPasses(record.doc_id, record.meta, clauses)).map((record) => record.doc_id);
  if (passing.length === 0) {
    const note = records.some((record) => record.meta !== undefined) ? 'no_match' : 'no_metadata';
    return { search: {}, nothingPasses: true, left: { filter_documents: 0, filter_note: note } };
  }
  const left = { filter_documents: passing.length, filter_note: null };
  if (passing.length > MAX_FILTER_IDS) return { search: { filter: clauses }, nothingPasses: false, left };
  return { search: { filter: [{ key: DOC_ID_KEY, anyOf: passing }] }, nothingPasses: false, left };
}
