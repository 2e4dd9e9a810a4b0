import { pythonStr, pythonStrip } from '../python-text';
import type { Chunk } from '../schemas/retrieved-chunk';
import { mergeScoreInto } from './score-merge';

/** spec §4.10 step 3: the chunk id when it has one, else `filename|page_number|text` rendered as Python would. */
export function dedupeKey(chunk: Chunk): string {
  const chunkId = typeof chunk.chunk_id === 'string' ? pythonStrip(chunk.chunk_id) : '';
  if (chunkId) return chunkId;
  const part = (value: unknown): string => (value === undefined ? 'None' : pythonStr(value));
  return `${part(chunk.filename)}|${part(chunk.page_number)}|${part(chunk.text)}`;
}

/**
 * `dedupe_documents` (spec §4.10 step 3): keeps the first occurrence of each key in place and folds later
 * duplicates' scores into it (spec §6.5.2). No re-sorting. Returns new chunk objects.
 */
export function dedupeDocuments(docs: readonly Chunk[]): Chunk[] {
  const kept: Chunk[] = [];
  const positionByKey = new Map<string, number>();
  for (const doc of docs) {
    const key = dedupeKey(doc);
    const position = positionByKey.get(key);
    if (position === undefined) {
      positionByKey.set(key, kept.length);
      kept.push({ ...doc });
    } else {
      kept[position] = mergeScoreInto(kept[position] as Chunk, doc);
    }
  }
  return kept;
}
