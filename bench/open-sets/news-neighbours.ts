import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict';
import { goldenSetTerms } from '../knowledge/golden-terms';

/*
 * The unrelated-but-similar documents of the news-like sets (issue 42 §7): Okapi BM25 (k1 1.2, b 0.75) over each
 * text's terms, the frozen stopwords of bench/knowledge/golden-terms.ts dropped — the neighbour search of
 * bench/build-golden-sets.ts, so that these sets' distractors are chosen as the CMRC sets' are. Chinese text is cut
 * by jieba, English text at non-letters.
 */

let jieba: Jieba | undefined;
export const chineseTerms = (text: string): string[] => goldenSetTerms((jieba ??= Jieba.withDict(dict)).cut(text, false));
export const englishTerms = (text: string): string[] => goldenSetTerms(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** The texts nearest to one of them, best first; ties by index, so the order is deterministic. */
export function bm25Neighbours(texts: readonly string[], termsOf: (text: string) => string[]) {
  const docs = texts.map(termsOf);
  const df = new Map<string, number>();
  for (const terms of docs) for (const term of new Set(terms)) df.set(term, (df.get(term) ?? 0) + 1);
  const avg = docs.reduce((sum, terms) => sum + terms.length, 0) / Math.max(1, docs.length);
  const tf = docs.map((terms) => terms.reduce((map, term) => map.set(term, (map.get(term) ?? 0) + 1), new Map<string, number>()));
  const idf = (term: string) => Math.log(1 + (docs.length - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5));
  return (index: number, exclude: (j: number) => boolean): number[] => {
    const query = [...new Set(docs[index] ?? [])];
    return docs
      .map((terms, j) => {
        if (j === index || exclude(j)) return { j, score: -1 };
        const freq = tf[j]!;
        const score = query.reduce((sum, term) => {
          const f = freq.get(term) ?? 0;
          return f === 0 ? sum : sum + idf(term) * ((f * 2.2) / (f + 1.2 * (0.25 + (0.75 * terms.length) / avg)));
        }, 0);
        return { j, score };
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.j - b.j)
      .map((entry) => entry.j);
  };
}
