import type { EvidenceChange, EvidenceRef } from '../schemas/run-comparison';
import type { Chunk } from '../schemas/retrieved-chunk';

/** A chunk's identity across runs: its chunk id, else its document id, else its file name. */
export function evidenceKeyOf(chunk: Chunk): string {
  return chunk.chunk_id ?? chunk.doc_id ?? chunk.filename ?? String(chunk.id ?? '');
}

function positions(docs: Chunk[]): Map<string, { rank: number; chunk: Chunk }> {
  const keyed = new Map<string, { rank: number; chunk: Chunk }>();
  docs.forEach((chunk, i) => {
    const key = evidenceKeyOf(chunk);
    if (!keyed.has(key)) keyed.set(key, { rank: i + 1, chunk });
  });
  return keyed;
}

/** The final evidence that entered (only in b), left (only in a) or moved (in both, at another position). */
export function compareEvidence(a: Chunk[], b: Chunk[]): EvidenceChange {
  const [left, right] = [positions(a), positions(b)];
  const ref = (key: string): EvidenceRef => {
    const chunk = (left.get(key) ?? right.get(key))?.chunk;
    return { key, filename: chunk?.filename ?? null, doc_id: chunk?.doc_id ?? null, rankA: left.get(key)?.rank ?? null, rankB: right.get(key)?.rank ?? null };
  };
  return {
    entered: [...right.keys()].filter((key) => !left.has(key)).map(ref),
    left: [...left.keys()].filter((key) => !right.has(key)).map(ref),
    moved: [...left.keys()].filter((key) => right.has(key) && left.get(key)?.rank !== right.get(key)?.rank).map(ref),
  };
}
