import { Jieba } from '@node-rs/jieba';
import { dict, idf } from '@node-rs/jieba/dict';
import type { TaggedWord } from '../../core/offline-policy/question-terms';

/*
 * jieba for the offline policy: one tokenizer and one IDF table per process (the dictionary takes ~100 ms to load,
 * the IDF table ~150 ms), read only when the offline policy first needs them.
 */

let jieba: Jieba | null = null;
function tokenizer(): Jieba {
  jieba ??= Jieba.withDict(dict);
  return jieba;
}

let idfTable: Map<string, number> | null = null;
/** jieba's IDF table (idf.txt: "word weight" per line), from a general Chinese corpus. */
function idfWeights(): Map<string, number> {
  if (!idfTable) {
    idfTable = new Map();
    for (const line of Buffer.from(idf).toString('utf8').split('\n')) {
      const space = line.lastIndexOf(' ');
      if (space > 0) idfTable.set(line.slice(0, space), Number(line.slice(space + 1)));
    }
  }
  return idfTable;
}

/** Search-mode tokens (overlapping pieces: 计算机 → 计算, 算机, 计算机): what BM25 and the extractive answerer read. */
export function searchTokens(text: string): string[] {
  return tokenizer().cutForSearch(text, true);
}

/** Precise-mode words with their parts of speech: each character in exactly one word. */
export function taggedWords(text: string): TaggedWord[] {
  return tokenizer().tag(text, true).map(({ word, tag }) => ({ word, tag }));
}

/** The IDF of a (lower-cased) word, undefined when jieba's table does not know it. */
export function inverseDocumentFrequency(word: string): number | undefined {
  return idfWeights().get(word);
}
