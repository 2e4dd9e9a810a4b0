/*
 * What kind of fact a question asks for — a version, a date, an amount — and whether a sentence states one. The
 * extractive answerer uses it so that "Which releases fixed X?" is answered with the sentence naming the release,
 * not only the one repeating X (docs/offline-policy.md, "Answerer"). Pure; English and Chinese.
 */

export type QuestionSlot = 'version' | 'date' | 'amount';

type SlotRule = { slot: QuestionSlot; asks: RegExp; states: RegExp };

const CHINESE_NUMERAL = '[零〇一二两三四五六七八九十百千万亿]';
// A number standing alone: not the digit of a model name (K7, X1) or of an identifier (CVE-2023-31047).
const NUMBER = '(?<![A-Za-z\\d.-])\\d';

// Checked in this order: "which version" is a version even though "which" could open anything.
const RULES: readonly SlotRule[] = [
  {
    slot: 'version',
    asks: /\b(?:which|what)\b[^?]*?\b(?:releases?|versions?)\b|\bversion numbers?\b|哪(?:个|些|一)?(?:个)?版本|什么版本|版本号/iu,
    states: /(?<![A-Za-z\d.-])\d+(?:\.\d+)+|\b(?:version|release|v)\s*\d+|\d+\s*版/iu,
  },
  {
    slot: 'date',
    asks: /^\s*when\b|\b(?:what|which)\s+(?:date|year|day|month)\b|\bsince when\b|什么时候|何时|哪(?:一)?(?:年|天|日|月)|几月|几号|日期/iu,
    states: new RegExp(
      `\\b(?:1[6-9]|20)\\d{2}\\b|\\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?\\s+\\d|\\d+\\s*[年月日号]|${CHINESE_NUMERAL}+\\s*[年月日号]`,
      'iu',
    ),
  },
  {
    slot: 'amount',
    asks: /\bhow\s+(?:much|many|long|far|often|big|large|heavy|old|fast)\b|多少|几(?:个|种|次|天|年|项|位|分钟|小时|岁|款)|多(?:长|久|远|大|重|高|快)/iu,
    states: new RegExp(`${NUMBER}|${CHINESE_NUMERAL}{1,}(?:个|种|次|天|年|项|位|分钟|小时|岁|款|元|米|公里|倍)`, 'u'),
  },
];

/** The kind of fact the question asks for, or null when it asks for none of these (how, why, what is …). */
export function questionSlot(question: string): QuestionSlot | null {
  return RULES.find((rule) => rule.asks.test(question))?.slot ?? null;
}

/** True when the sentence states a fact of the slot's kind (a version number, a date, a number). */
export function statesSlot(slot: QuestionSlot, sentence: string): boolean {
  return (RULES.find((rule) => rule.slot === slot) as SlotRule).states.test(sentence);
}
