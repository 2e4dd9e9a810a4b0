import { newStemmer } from 'snowball-stemmers';

/*
 * English read by a library made for it (issue 32 §3): word forms by the Snowball English stemmer (Porter2: costs →
 * cost, pairing → pair). Pure: rules in memory, no I/O. Chinese keeps jieba's segmentation.
 */

const stemmer = newStemmer('english');

/** The Snowball (Porter2) stem of a lower-case English word. */
export const englishStem = (word: string): string => stemmer.stem(word);
