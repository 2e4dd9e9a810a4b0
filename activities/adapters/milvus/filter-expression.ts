import { RagError } from '../../../core/errors';
import { DOC_ID_KEY } from '../../../core/knowledge/document-meta';
import type { FilterClause } from '../../../core/retrieval/metadata-filter';
import type { LeafSearch } from '../../ports';
import { quoteForFilter } from './calls';
import { FIELD } from './schema';

/*
 * A leaf search's Milvus boolean expression (issue 44 §2), given as `filter` to both legs so that each searches only
 * the leaves that pass: the leaf level (spec §6.1), then one term per clause, ANDed. A document's metadata is the
 * dynamic field `meta` (a JSON object of string lists; no schema change, so collections created before it take it
 * too); `doc_id` is the `file_path` column. Verified on Milvus Lite 3.2.2, dense and BM25 legs alike:
 * `json_contains_any(meta["k"], [...])` and `not exists meta["k"]` (true on rows without `meta`).
 */

const list = (values: readonly string[]) => `[${values.map(quoteForFilter).join(', ')}]`;

function clauseExpression({ key, anyOf, orMissing }: FilterClause): string {
  // issue 44 §4: a token without groups reads only the documents without an access list.
  if (anyOf.length === 0 && orMissing && key !== DOC_ID_KEY) return `not exists ${FIELD.meta}[${quoteForFilter(key)}]`;
  if (anyOf.length === 0) throw new RagError('INVALID_INPUT', `filter on ${JSON.stringify(key)} has no value`);
  if (key === DOC_ID_KEY) return `file_path in ${list(anyOf)}`;
  const field = `${FIELD.meta}[${quoteForFilter(key)}]`;
  const holds = `json_contains_any(${field}, ${list(anyOf)})`;
  return orMissing ? `(${holds} or not exists ${field})` : holds;
}

/** The expression of a leaf search: its level, its documents (the older `docIds`) and its filter clauses. */
export function leafFilter({ leafLevel, docIds, filter }: LeafSearch): string {
  if (!Number.isSafeInteger(leafLevel)) {
    throw new RagError('INVALID_INPUT', `leaf level must be an integer, got ${JSON.stringify(leafLevel)}`);
  }
  const terms = [`chunk_level == ${leafLevel}`]; // spec §6.1
  // Issue 32 §2: a retrieval limited to the documents a person chose (file_path holds the document id).
  if (docIds && docIds.length > 0) terms.push(`file_path in ${list(docIds)}`);
  for (const clause of filter ?? []) terms.push(clauseExpression(clause));
  return terms.join(' and ');
}

/** The expression of the leaves of every level that pass `filter` (counting documents, stats). */
export function documentFilter(filter: readonly FilterClause[]): string {
  return ['chunk_level >= 0', ...filter.map(clauseExpression)].join(' and ');
}
