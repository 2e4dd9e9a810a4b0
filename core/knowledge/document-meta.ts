import { z } from 'zod';
import { RagError } from '../errors';

/*
 * Metadata on documents (issue 44 §1): a small map of keys to lists of strings, from the document's folder (`path`),
 * the YAML front matter of Markdown (core/knowledge/front-matter.ts) and `ingest --meta key=value`. Every value is a
 * list, so that `tags: [a, b]` and `product: x` are filtered the same way: `key=v` matches a document whose list for
 * `key` holds v. Stored on the document's record (the parent store) and on every leaf (Milvus), where filters run.
 */

/** A metadata key: a letter or "_" first, then letters, digits, "_" or "-"; at most 64 characters. */
export const MetaKey = z
  .string()
  .trim()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'a metadata key is a letter or _ followed by at most 63 letters, digits, _ or -');

/** One value: 1–256 characters, no control character. */
export const MetaValue = z
  .string()
  .trim()
  .min(1, 'a metadata value is empty')
  .max(256, 'a metadata value is longer than 256 characters')
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'a metadata value holds a control character');

/** At most this many keys per document, and values per key. */
export const META_MAX_KEYS = 32;
export const META_MAX_VALUES = 64;

export const DocumentMeta = z
  .record(MetaKey, z.array(MetaValue).min(1).max(META_MAX_VALUES))
  .refine((meta) => Object.keys(meta).length <= META_MAX_KEYS, `a document carries at most ${META_MAX_KEYS} metadata keys`);
export type DocumentMeta = z.infer<typeof DocumentMeta>;

/**
 * The key a filter names the document id by (the leaf's `file_path`): not metadata, so it cannot be set, but it
 * filters (the scope pick's filter is `doc_id`).
 */
export const DOC_ID_KEY = 'doc_id';
/** The key ingestion fills from the document id's folder ("guides/setup.md" → "guides"). */
export const PATH_KEY = 'path';

/** The folder of a document id ('' for an id without one). */
export function folderOf(docId: string): string {
  const cut = docId.lastIndexOf('/');
  return cut <= 0 ? '' : docId.slice(0, cut);
}

/**
 * A document's metadata from its sources, later ones winning per key: the folder (`path`), the front matter, then the
 * values given on the command line.
 */
export function mergeMeta(docId: string, ...sources: ReadonlyArray<DocumentMeta | undefined>): DocumentMeta {
  const folder = folderOf(docId);
  const merged: DocumentMeta = folder === '' ? {} : { [PATH_KEY]: [folder.slice(0, 256)] };
  for (const source of sources) Object.assign(merged, source ?? {});
  return merged;
}

/** Values written `a,b` (each trimmed, empty ones dropped). */
const listOf = (text: string) => text.split(',').map((value) => value.trim()).filter((value) => value !== '');

// An operator other than "=" that a person may try (key!=v, key>=v, key~v, key:v): named in the error.
const OPERATOR = /^([^=!<>~:]*?)\s*(!=|>=|<=|==|=~|~=|>|<|~|:)/;

/**
 * `key=value` arguments (`--filter`, `--meta`, `docs meta set`), repeatable, `key=a,b` for several values, as a map.
 * A malformed one, an operator other than "=", a bad key or value, or a key given twice is INVALID_INPUT naming it.
 */
export function parseKeyValues(args: readonly string[], what: '--filter' | '--meta' | 'docs meta set'): Record<string, string[]> {
  const parsed: Record<string, string[]> = {};
  const fail = (arg: string, problem: string): never => {
    throw new RagError('INVALID_INPUT', `${what} ${JSON.stringify(arg)}: ${problem}; write key=value (key=a,b for one of several values)`);
  };
  for (const arg of args) {
    const operator = OPERATOR.exec(arg);
    if (operator) fail(arg, `unknown operator "${operator[2]}" (only = is supported)`);
    const eq = arg.indexOf('=');
    if (eq < 0) fail(arg, 'no "=" in it');
    const key = MetaKey.safeParse(arg.slice(0, eq));
    if (!key.success) fail(arg, key.error.issues[0]!.message);
    const values = listOf(arg.slice(eq + 1));
    if (values.length === 0) fail(arg, 'no value after "="');
    for (const value of values) {
      const checked = MetaValue.safeParse(value);
      if (!checked.success) fail(arg, checked.error.issues[0]!.message);
    }
    if (key.data! in parsed) fail(arg, `key "${key.data}" is given twice (write ${key.data}=a,b for one of several values)`);
    if (what !== '--filter' && key.data === DOC_ID_KEY) fail(arg, `"${DOC_ID_KEY}" is the document's id, not metadata`);
    parsed[key.data!] = values;
  }
  return parsed;
}
