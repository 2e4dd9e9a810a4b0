import type { DocumentMeta } from './document-meta';
import { aclOf, mayRead } from './document-access';

/*
 * What a reader of a run may see (issue 44 §4): ONE pure function every read goes through — run outcomes, details,
 * traces, comparisons, the audit's session trace, progress and answer events, MCP tool results and resources — so
 * that no route forgets a field. A run started by one token and read by another shows only what the reader may see:
 *
 * - every element of a list (evidence, chunks, citations, scope-pick options, sources, tool records…) that names a
 *   document the reader may not read (by doc id, file path, file name, source or title) is removed;
 * - every other string that holds such a document's id, file name, title, or the text of one of its removed chunks,
 *   is replaced by WITHHELD;
 * - an answer written from evidence that held such a document is withheld: `answer` null, `answer_null_reason`
 *   `not_visible` (a closed reason, core/schemas/answer.ts), its citations and quotes gone with it;
 * - beside a list that lost entries, `filter_documents` becomes null and every `…count` field is lowered by as many
 *   (a count of hidden documents is not shown; where a count was of leaves, not documents, it is lowered too far:
 *   the safe side).
 *
 * Matching is by value, not by field name alone, so a field added later that carries a hidden document's id or text
 * is caught too. Removing too much is the safe side: a reader who may read every document gets the value unchanged.
 */

/** What replaces a string that held something of a document the reader may not read. */
export const WITHHELD = '[withheld: not visible to this token]';

/** A document of the knowledge base, as the reader's view needs it: its ids, names and access list. */
export type AccessDocument = { doc_id: string; filename: string; source: string; meta?: DocumentMeta };

/** The documents a reader may not read, as the strings that name them. Empty: the reader sees everything. */
export type HiddenDocuments = { readonly refs: readonly string[] };

export const NOTHING_HIDDEN: HiddenDocuments = { refs: [] };

// Names shorter than this are not searched for inside other strings (they would match everywhere).
const MIN_REF = 4;
// Chunk texts shorter than this are not searched for inside other strings.
const MIN_TEXT = 24;

const stemOf = (filename: string) => filename.replace(/\.[^.]+$/, '');

/** The documents a reader with these groups may not read, among the knowledge bases' documents. */
export function hiddenDocuments(groups: readonly string[], documents: readonly AccessDocument[]): HiddenDocuments {
  const refs = new Set<string>();
  for (const document of documents) {
    if (mayRead(groups, aclOf(document.meta))) continue;
    const names = [document.doc_id, document.filename, stemOf(document.filename), document.source, ...(document.meta?.['title'] ?? [])];
    for (const name of names) if (name.length >= MIN_REF) refs.add(name);
  }
  return { refs: [...refs] };
}

// Fields whose value names a document (or a chunk of one): an object with one naming a hidden document is removed.
const NAMING_KEYS = new Set([
  'doc_id', 'docId', 'document_id', 'documentId', 'file_path', 'filePath', 'filename', 'fileName', 'source', 'title',
  'chunk_id', 'parent_chunk_id', 'root_chunk_id', 'id', 'key', 'label', 'option', 'value',
]);
// Fields of a removed object whose text is searched for elsewhere (a context block, a prompt preview, a quote).
const TEXT_KEYS = ['text', 'context', 'quote', 'preview', 'content'];

// Counts lowered with a list that lost entries (candidate_count, evidence_block_count, returned_count, …); a chunk's
// own counts of merged children stay (they are ≥ 1 and not about other documents).
const COUNT_KEY = /count$/i;
const KEPT_COUNTS = new Set(['child_count', 'merged_child_count']);

type Json = unknown;
const isRecord = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every `…count` field of a value, at any depth, lowered by `by` (not below 0); `filter_documents` null. */
function lowerCounts(node: Json, by: number): Json {
  if (Array.isArray(node)) return node.map((item) => lowerCounts(item, by));
  if (!isRecord(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, field]) => {
      if (key === 'filter_documents' && typeof field === 'number') return [key, null];
      const isCount = typeof field === 'number' && Number.isInteger(field) && COUNT_KEY.test(key) && !KEPT_COUNTS.has(key);
      return isCount ? [key, Math.max(0, field - by)] : [key, lowerCounts(field, by)];
    }),
  );
}

/** Redacts a value for a reader (see above); returns a new value, the given one is not changed. */
export function redactForReader<T>(value: T, hidden: HiddenDocuments): T {
  if (hidden.refs.length === 0) return value;
  const refs = hidden.refs;
  const holdsRef = (text: string) => refs.some((ref) => text.includes(ref));
  const namesHidden = (object: Record<string, Json>) =>
    Object.entries(object).some(([key, field]) => NAMING_KEYS.has(key) && typeof field === 'string' && holdsRef(field));

  // Pass 1: the texts of the objects that will be removed, to be searched for in every other string.
  const texts = new Set<string>();
  const collect = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!isRecord(node)) return;
    if (namesHidden(node)) {
      for (const key of TEXT_KEYS) {
        const text = node[key];
        if (typeof text === 'string' && text.length >= MIN_TEXT) texts.add(text);
      }
    }
    Object.values(node).forEach(collect);
  };
  collect(value);
  const secrets = [...texts];
  const leaks = (text: string) => holdsRef(text) || secrets.some((secret) => text.includes(secret) || (text.length >= MIN_TEXT && secret.includes(text)));

  const redact = (node: Json): Json => {
    if (typeof node === 'string') return leaks(node) ? WITHHELD : node;
    if (Array.isArray(node)) {
      return node
        .filter((item) => !(isRecord(item) && namesHidden(item)) && !(typeof item === 'string' && leaks(item)))
        .map(redact);
    }
    if (!isRecord(node)) return node;
    const out: Record<string, Json> = {};
    let removed = 0;
    for (const [key, field] of Object.entries(node)) {
      const next = redact(field);
      if (Array.isArray(field) && Array.isArray(next)) removed = Math.max(removed, field.length - next.length);
      out[key] = next;
    }
    // An outcome (it has `answer` and `answer_null_reason`) whose evidence held a hidden document: its answer is withheld.
    if ('answer' in node && 'answer_null_reason' in node && out['answer'] !== null && evidenceHidden(node)) {
      out['answer'] = null;
      out['answer_null_reason'] = 'not_visible';
    }
    // The counts beside a list that lost entries, and below it (`meta.candidate_count`), lose them too.
    return removed > 0 ? lowerCounts(out, removed) : out;
  };

  const evidenceHidden = (outcome: Record<string, Json>): boolean => {
    const docs = outcome['docs'];
    const inDocs = Array.isArray(docs) && docs.some((doc) => isRecord(doc) && namesHidden(doc));
    const answerText = JSON.stringify(outcome['answer'] ?? null);
    return inDocs || leaks(answerText);
  };

  return redact(value) as T;
}

/** Whether redaction changed anything (a reader's view differs from the run): for tests and logs. */
export function isRedacted(before: unknown, after: unknown): boolean {
  return JSON.stringify(before) !== JSON.stringify(after);
}
