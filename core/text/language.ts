/*
 * The language a person wrote in, for the texts ragtime writes back (answers, no-knowledge sentences). Chinese keeps
 * the spec's exact texts; everything else gets English.
 */

export type TextLanguage = 'zh' | 'en';

// Han ideographs (CJK Unified Ideographs and extension A, compatibility ideographs).
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/u;

/** 'zh' when the text holds a Han character, else 'en'. */
export function textLanguage(text: string): TextLanguage {
  return HAN.test(text) ? 'zh' : 'en';
}
