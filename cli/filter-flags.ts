import { RagError } from '../core/errors';
import { ACL_KEY } from '../core/knowledge/document-access';
import { parseKeyValues } from '../core/knowledge/document-meta';

/*
 * `--filter key=value` (ask, chat) and `--meta key=value` (ingest), repeatable (issue 44): commander collects the
 * values, core parses them, and a bad one is INVALID_INPUT (exit 2) before any connection is made.
 */

/** Commander's collector for a repeatable option. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The `--filter` values as AskOptions' `filters`, or nothing when none was given. */
export function filtersOfFlags(values: readonly string[] | undefined): { filters?: Record<string, string[]> } {
  if (!values || values.length === 0) return {};
  return { filters: parseKeyValues(values, '--filter') };
}

/** The `--meta` values as the ingestion's `meta`, or nothing when none was given. */
export function metaOfFlags(values: readonly string[] | undefined): { meta?: Record<string, string[]> } {
  if (!values || values.length === 0) return {};
  return { meta: parseKeyValues(values, '--meta') };
}

export const FILTER_HELP = 'only documents whose metadata matches: key=value, repeatable (all must match), key=a,b for one of; doc_id=<id> names a document';
export const META_HELP = 'metadata every file carries, over its folder (path) and Markdown front matter: key=value, repeatable, key=a,b for several values';

/**
 * `ingest --acl a,b` (issue 44 §4): the access list every file carries, as the metadata key `acl` (over the front
 * matter's). Given with `--meta acl=…` too, it is INVALID_INPUT: one place says who may read.
 */
export function withAcl(meta: { meta?: Record<string, string[]> }, acl: string | undefined): { meta?: Record<string, string[]> } {
  if (acl === undefined) return meta;
  if (meta.meta && ACL_KEY in meta.meta) throw new RagError('INVALID_INPUT', '--acl and --meta acl=… both name the access list; give one');
  return { meta: { ...(meta.meta ?? {}), ...parseKeyValues([`${ACL_KEY}=${acl}`], '--meta') } };
}

export const ACL_HELP = 'access list every file carries, comma-separated groups: only API tokens holding one of them read the documents (issue 44 §4)';
