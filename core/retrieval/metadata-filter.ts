import { z } from 'zod';
import { DOC_ID_KEY, type DocumentMeta, MetaKey, MetaValue } from '../knowledge/document-meta';

/*
 * Filters of a retrieval (issue 44 §2): the metadata a run, a question over the API or an MCP tool call restricts
 * retrieval to. Each key is one clause; a document passes when, for every key, its values hold one of the filter's
 * (`product=a,b`: a or b). `doc_id` names documents by id. Filters run inside both Milvus searches (never after), so
 * the legs ask for candidate_k among the documents that pass.
 *
 * A clause may also be *forced*: added by the server, not by the caller, and ANDed with what the caller asked, so no
 * filter of the caller widens it (issue 44 §4: a token's groups against a document's access list). `orMissing`
 * lets a document without the key pass (a document with no access list is readable by every token of its tenant).
 */

/** At most this many keys per filter, and values per key. */
export const FILTER_MAX_KEYS = 16;
export const FILTER_MAX_VALUES = 64;

/** A filter key: a metadata key, or `doc_id`. */
const FilterKey = z.union([z.literal(DOC_ID_KEY), MetaKey]);

/**
 * Filters as the API, MCP and the SDK take them: `{ product: "a" }` or `{ product: ["a", "b"] }` (one of). This form has
 * no transform, so it describes itself as JSON Schema (OpenAPI, MCP tool schemas).
 */
export const FiltersInput = z
  .record(FilterKey, z.union([MetaValue, z.array(MetaValue).min(1).max(FILTER_MAX_VALUES)]))
  .refine((filters) => Object.keys(filters).length <= FILTER_MAX_KEYS, `at most ${FILTER_MAX_KEYS} filter keys`);
export type MetadataFiltersInput = z.input<typeof FiltersInput>;

/** Filters as a run's input keeps them: every value a list. */
export const MetadataFilters = FiltersInput.transform((filters) =>
  Object.fromEntries(Object.entries(filters).map(([key, values]) => [key, Array.isArray(values) ? values : [values]])),
);
export type MetadataFilters = z.output<typeof MetadataFilters>;

/** One clause of a leaf search: the document's `key` holds one of `anyOf` (or, with `orMissing`, has no `key`). */
export type FilterClause = { key: string; anyOf: readonly string[]; orMissing?: boolean };

/** The clauses of a retrieval: the caller's filters, then the forced ones (ANDed; never widened by the caller's). */
export function filterClauses(filters: MetadataFilters | undefined, forced: readonly FilterClause[] = []): FilterClause[] {
  const asked = Object.entries(filters ?? {}).map(([key, anyOf]) => ({ key, anyOf }));
  return [...asked, ...forced];
}

/** Whether a document (its id and metadata) passes every clause: what Milvus' expression computes, for checks in code. */
export function documentPasses(docId: string, meta: DocumentMeta | undefined, clauses: readonly FilterClause[]): boolean {
  return clauses.every(({ key, anyOf, orMissing }) => {
    const values = key === DOC_ID_KEY ? [docId] : meta?.[key];
    if (values === undefined) return orMissing === true;
    return values.some((value) => anyOf.includes(value));
  });
}

/** A filter as one line for people: `product=a,b lang=en`. */
export function describeFilters(filters: MetadataFilters): string {
  return Object.entries(filters)
    .map(([key, values]) => `${key}=${values.join(',')}`)
    .join(' ');
}

/** The filters and the documents a person chose (scope pick, issue 44 §3) as one filter: the choice as `doc_id`. */
export function withDocIds(filters: MetadataFilters | undefined, docIds: readonly string[] | undefined): MetadataFilters | undefined {
  if (!docIds || docIds.length === 0) return filters;
  return { ...(filters ?? {}), [DOC_ID_KEY]: [...docIds] };
}
