import { newStemmer } from 'snowball-stemmers';
import stopwordsIso from 'stopwords-iso';

/*
 * English read by libraries made for it (issue 32 §3): word forms by the Snowball English stemmer (Porter2: costs →
 * cost, pairing → pair), stop words from stopwords-iso's English list (1,298 words: how, much, does, the …). Pure: both
 * are tables and rules in memory, no I/O. Chinese keeps jieba's segmentation and the offline policy's own list.
 */

const stemmer = newStemmer('english');

/** The Snowball (Porter2) stem of a lower-case English word. */
export const englishStem = (word: string): string => stemmer.stem(word);

/** stopwords-iso's English stop words, lower-case. */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(stopwordsIso.en);
