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
