import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Embedder } from '../../activities/ports';

/*
 * An optional on-disk cache in front of a real embedder, for re-running an evaluation without embedding the same
 * texts again (the first run fills it through the real embedder). Keyed by model, input type and text; one JSON line
 * per vector. Kept outside the repository (e.g. under /tmp): it is derived from the evaluation data.
 */

type Kind = 'query' | 'passage';

const keyOf = (model: string, kind: Kind, text: string): string => createHash('sha256').update(`${model}\u0000${kind}\u0000${text}`).digest('hex');

export type CachedEmbedder = Embedder & { readonly hits: number; readonly misses: number };

export function cachedEmbedder(inner: Embedder, file: string): CachedEmbedder {
  const vectors = new Map<string, number[]>();
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const { k, v } = JSON.parse(line) as { k: string; v: number[] };
      vectors.set(k, v);
    }
  }
  let hits = 0;
  let misses = 0;
  const embed = async (kind: Kind, texts: string[]): Promise<number[][]> => {
    const keys = texts.map((text) => keyOf(inner.model, kind, text));
    const missing = [...new Set(keys.filter((key) => !vectors.has(key)))];
    hits += texts.length - missing.length;
    misses += missing.length;
    if (missing.length > 0) {
      const textOf = new Map(keys.map((key, i) => [key, texts[i]!]));
      const missingTexts = missing.map((key) => textOf.get(key)!);
      const fresh = kind === 'query' ? await inner.embedQueries(missingTexts) : await inner.embedPassages(missingTexts);
      missing.forEach((key, i) => vectors.set(key, fresh[i]!));
      appendFileSync(file, missing.map((key, i) => `${JSON.stringify({ k: key, v: fresh[i] })}\n`).join(''));
    }
    return keys.map((key) => vectors.get(key)!);
  };
  return {
    model: inner.model,
    dim: inner.dim,
    embedQueries: (texts) => embed('query', texts),
    embedPassages: (texts) => embed('passage', texts),
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
  };
}
