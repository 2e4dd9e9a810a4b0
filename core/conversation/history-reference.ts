import { textLanguage } from '../text/language';

/*
 * Whether a question leans on earlier turns (issue 25 §1): it names something only the conversation can resolve — a
 * pronoun or demonstrative ("它", "这款", "it", "that one") — or it is an ellipsis that keeps the last question and
 * changes its subject ("那 Nimbus C1 呢？", "and the X3?"). A question that needs neither is asked as it is, and no
 * model is called to condense it. The rules lean towards "stands alone": a wrong rewrite retrieves the wrong thing,
 * a missed one retrieves what the person typed.
 */

export type HistoryReference =
  /** A pronoun to resolve with the previous subject. */
  | { kind: 'pronoun'; marker: string }
  /** The previous question asked again of a new subject ("那 Nimbus C1 呢？", "and the X3?"). */
  | { kind: 'new_subject'; subject: string }
  /** Something else asked of the previous subject ("价格呢？", "and the price?"). */
  | { kind: 'new_attribute'; attribute: string };

/** A named subject has Latin letters or digits in Chinese text, or starts with a capital or digit in English. */
const NAMED_ZH = /[A-Za-z0-9]/;
const NAMED_EN = /^[A-Z0-9]/;

// Longest first, so "它们" wins over "它" and "这款产品" over "这款".
const ZH_PRONOUNS = ['它们的', '它的', '它们', '它', '其', '该产品', '这款产品', '那款产品', '这个产品', '这款', '那款', '此款', '这个', '那个', '上一个', '前者', '后者'];
const EN_PRONOUN = /\b(it|its|it's|that one|this one|they|them|their|the same)\b/i;
/** "那 X 呢？", "X 呢？", "那么 X 呢" — a subject and nothing else. */
const ZH_NEW_SUBJECT = /^(?:那么?|还有)?\s*(.{1,24}?)\s*呢[？?]?$/u;
/** "and the X3?", "what about Nimbus C1?", "how about the X3 Pro?" */
const EN_NEW_SUBJECT = /^(?:and|what about|how about)\s+(?:the\s+)?(.{1,40}?)\s*\??$/i;

export function historyReference(question: string): HistoryReference | null {
  const text = question.trim();
  if (textLanguage(text) === 'zh') {
    const marker = ZH_PRONOUNS.find((pronoun) => text.includes(pronoun));
    if (marker) return { kind: 'pronoun', marker };
    const subject = ZH_NEW_SUBJECT.exec(text)?.[1]?.trim();
    if (!subject) return null;
    return NAMED_ZH.test(subject) ? { kind: 'new_subject', subject } : { kind: 'new_attribute', attribute: subject };
  }
  const subject = EN_NEW_SUBJECT.exec(text)?.[1]?.trim();
  if (subject && !EN_PRONOUN.test(subject)) return NAMED_EN.test(subject) ? { kind: 'new_subject', subject } : { kind: 'new_attribute', attribute: subject };
  const marker = EN_PRONOUN.exec(text)?.[1];
  return marker ? { kind: 'pronoun', marker } : null;
}
