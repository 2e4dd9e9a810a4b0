import { documentIdOf, documentTitle, fileStem } from '../knowledge/document-title';
import type { Chunk } from '../schemas/retrieved-chunk';

/*
 * A person's answer to scope_select (issue 32 §2): the option's title (a number was turned into it by the client), or
 * the document's file name or id. The chosen document limits the targeted retrieval, and its title is what the
 * refined question carries.
 */

/** A document scope_select offered a choice between (kept by the run: the route drops the evidence itself). */
export type ScopeCandidate = { docId: string; filename: string; title: string };

/** The documents of the evidence a scope_select grade read, each once, with its title. */
export function scopeCandidates(docs: readonly Chunk[]): ScopeCandidate[] {
  const seen = new Map<string, ScopeCandidate>();
  for (const chunk of docs) {
    const docId = documentIdOf(chunk);
    if (!seen.has(docId)) seen.set(docId, { docId, filename: chunk.filename ?? docId, title: documentTitle(chunk, docs) });
  }
  return [...seen.values()];
}

/** The candidates the answer names (by title, file name, its stem or id), and the title to ask with; null for none. */
export function chosenScope(answer: string, candidates: readonly ScopeCandidate[]): { title: string; docIds: string[] } | null {
  const said = answer.trim().toLowerCase();
  if (said === '') return null;
  const chosen = candidates.filter(({ docId, filename, title }) =>
    [title, fileStem(filename), filename, docId].some((name) => name.trim().toLowerCase() === said),
  );
  return chosen.length === 0 ? null : { title: chosen[0]!.title, docIds: chosen.map((candidate) => candidate.docId) };
}
