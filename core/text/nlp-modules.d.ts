// Types of the stemmer core/text/english-words.ts reads (it ships none).
declare module 'snowball-stemmers' {
  export function newStemmer(language: string): { stem(word: string): string };
  export function algorithms(): string[];
}
