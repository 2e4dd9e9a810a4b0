// Types of the NLP packages core/text/english-words.ts reads (neither ships its own).
declare module 'snowball-stemmers' {
  export function newStemmer(language: string): { stem(word: string): string };
  export function algorithms(): string[];
}
declare module 'stopwords-iso' {
  const stopwords: Record<string, string[]>;
  export default stopwords;
}
