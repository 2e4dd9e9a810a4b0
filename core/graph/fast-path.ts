import { PY_WHITESPACE_CLASS, pythonStrip } from '../python-text';

/*
 * The local fast path of `classify_complexity` (spec §4.2.1): a question that is obviously simple skips the planner.
 * Pure and deterministic; lengths are counted in code points, as Python does.
 */

/** spec §4.2.1 rule 1: longer normalized questions never take the fast path. */
export const FAST_PATH_MAX_LENGTH = 48;
/** spec §4.2.1 rule 8. */
export const SHORT_SINGLE_INTENT_MAX_LENGTH = 18;

/** spec §4.2.1 rule 2 (35 markers; "why " and "how " carry a trailing space). */
export const COMPLEX_MARKERS = [
  '比较', '对比', '区别', '差异', '优缺点', '优势', '劣势', '分析', '总结', '综合', '原因', '成因', '影响', '方案',
  '步骤', '如何', '为什么', '以及', '同时', '并且', '和', '与', '谁更', 'compare', 'versus', 'difference',
  'different', 'analyze', 'summarize', 'trade-off', 'pros and cons', 'why ', 'how ', 'complex',
] as const;

/** spec §4.2.1 rule 5 (12 markers). */
export const DIMENSION_MARKERS = [
  '属性', '武器', '定位', '技能', '机制', '参数', '规格', '性能', '价格', '优点', '缺点', '作用',
] as const;

/** spec §4.2.1 rule 7 (19 markers). */
export const SIMPLE_MARKERS = [
  '是什么', '是谁', '哪里', '何时', '多少', '是否', '哪个', '哪种', '属性', '参数', '规格', '定义', '含义',
  'what is', 'who is', 'where is', 'when is', 'how many', 'which',
] as const;

export const FAST_PATH_SINGLE_FACT = 'obvious_simple_fast_path:single_fact_marker';
export const FAST_PATH_SHORT_SINGLE_INTENT = 'obvious_simple_fast_path:short_single_intent';
export type FastPathReason = typeof FAST_PATH_SINGLE_FACT | typeof FAST_PATH_SHORT_SINGLE_INTENT;

/** `re`'s Unicode `\s` matches exactly Python's whitespace characters. */
const WHITESPACE_RUN = new RegExp(`[${PY_WHITESPACE_CLASS}]+`, 'g');
const CJK_IDEOGRAPH = /[\u4e00-\u9fff]/;
const QUESTION_SEPARATORS = /[?？;；]/g;
const TRAILING_PUNCTUATION = /[?？。.!！]+$/;

/** Trim, collapse whitespace runs into one ASCII space, lower-case. */
export function normalizeForFastPath(question: string): string {
  return pythonStrip(question).replace(WHITESPACE_RUN, ' ').toLowerCase();
}

const codePointLength = (text: string): number => [...text].length;
const countOf = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

/** Returns the fast-path reason, or null when the planner must decide (rules 1–9 of spec §4.2.1, in order). */
export function simpleQuestionFastPathReason(question: string): FastPathReason | null {
  const n = normalizeForFastPath(question);
  if (n.length === 0 || codePointLength(n) > FAST_PATH_MAX_LENGTH) return null;
  if (COMPLEX_MARKERS.some((marker) => n.includes(marker))) return null;
  if (n.includes('、')) return null;
  if (CJK_IDEOGRAPH.test(n) && countOf(n, / /g) >= 2) return null;
  if (DIMENSION_MARKERS.filter((marker) => n.includes(marker)).length >= 2) return null;
  if (countOf(n, QUESTION_SEPARATORS) > 1) return null;
  if (SIMPLE_MARKERS.some((marker) => n.includes(marker))) return FAST_PATH_SINGLE_FACT;
  if (codePointLength(n.replace(TRAILING_PUNCTUATION, '')) <= SHORT_SINGLE_INTENT_MAX_LENGTH) {
    return FAST_PATH_SHORT_SINGLE_INTENT;
  }
  return null;
}
