import { gradingSentences } from '../../core/grading/grading-sentences';
import type { ReadSentence } from '../../core/grading/signals';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { Embedder } from '../ports';

/*
 * Reads the evidence by meaning for the offline grader and answerer (issue 42 §2): the question and each evidence
 * sentence (with its chunk's context) embedded by the bundled model (e5 "query: " / "passage: ", which the embedder
 * adds), and their cosine. Vectors are kept in the worker's memory by text, so a run's grade, its regrade after a
 * rewrite and its answer embed each sentence once.
 */

/** Vectors kept, by text: a run reads ~100 sentences; a worker serving many runs keeps the most recent ones. */
export const MEANING_CACHE_SIZE = 20_000;

export type MeaningReader = {
  /** The evidence's sentences (core/grading/grading-sentences.ts) with their similarity to the question. */
  readSentences(question: string, evidence: readonly Chunk[]): Promise<ReadSentence[]>;
  /** The similarity to the question of each given text (read as a passage). */
  similarities(question: string, texts: readonly string[]): Promise<number[]>;
};

const dot = (a: readonly number[], b: readonly number[]): number => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

export function createMeaningReader(embedder: Embedder, cacheSize = MEANING_CACHE_SIZE): MeaningReader {
  const cache = new Map<string, number[]>();
  const remember = (key: string, vector: number[]) => {
    cache.delete(key);
    cache.set(key, vector);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
  };
  // Texts being embedded now: a grade and a speculative answer that read the same sentences at once ask once.
  const pending = new Map<string, Promise<void>>();
  async function vectors(kind: 'query' | 'passage', texts: readonly string[]): Promise<number[][]> {
    const keyOf = (text: string) => `${kind}\u0000${text}`;
    const missing = [...new Set(texts.filter((text) => !cache.has(keyOf(text)) && !pending.has(keyOf(text))))];
    if (missing.length > 0) {
      const request = (kind === 'query' ? embedder.embedQueries(missing) : embedder.embedPassages(missing)).then((embedded) =>
        missing.forEach((text, i) => remember(keyOf(text), embedded[i] as number[])),
      );
      const done = request.finally(() => missing.forEach((text) => pending.delete(keyOf(text))));
      missing.forEach((text) => pending.set(keyOf(text), done));
    }
    await Promise.all([...new Set(texts.map((text) => pending.get(keyOf(text))).filter((wait) => wait !== undefined))]);
    return texts.map((text) => {
      const vector = cache.get(keyOf(text));
      if (!vector) throw new Error(`no vector for a ${kind} text: its embedding request failed`);
      return vector;
    });
  }
  const reader: MeaningReader = {
    async similarities(question, texts) {
      const [q] = await vectors('query', [question]);
      const passages = await vectors('passage', texts);
      // Vectors are L2-normalized by the embedder: the inner product is the cosine.
      return passages.map((vector) => Math.round(dot(q as number[], vector) * 1e4) / 1e4);
    },
    async readSentences(question, evidence) {
      const sentences = gradingSentences(evidence);
      const sims = await reader.similarities(question, sentences.map((sentence) => sentence.embedText));
      return sentences.map((sentence, i) => ({ ...sentence, similarity: sims[i] ?? 0 }));
    },
  };
  return reader;
}
