import { checkTokens, type CheckToken } from '../../core/answer/numeric-tokens';
import type { AnswerDraft } from '../../core/schemas/answer';

/*
 * An answer writer that sometimes invents a number (issue 26 §4): it quotes a sentence of the evidence verbatim and
 * restates it, faithfully or with one number, date, unit or model name changed in the answer while the quote stays
 * verbatim — the case the citation check alone passes as verified. Scripted into the loopback OpenAI-compatible
 * server (test/support/fake-openai-server.ts) by the answer-check test and by bench/numeric-check.ts.
 */

const HAN_SMALL = ['零', '一', '两', '三', '四', '五', '六', '七', '八', '九', '十'];
const FULL_WIDTH = (digits: string): string => digits.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)));

/** The sentence without its end punctuation. */
export const bare = (sentence: string): string => sentence.trim().replace(/[。！？!?；;.,，\s]+$/u, '');

/** The tokens of a sentence a writer could change: those with a digit in them. */
export const changeableTokens = (sentence: string): CheckToken[] => checkTokens(sentence).filter((token) => /[0-9０-９]/.test(token.surface));

/** `text` with the first digit run of `token` raised by one (2 → 3, 256GB → 257GB, X2 → X3, 2024-05-01 → 2025-05-01). */
export function inventNumber(text: string, token: CheckToken): string {
  const changed = token.surface.replace(/[0-9０-９]+/, (run) => String(Number(run.normalize('NFKC')) + 1));
  return `${text.slice(0, token.start)}${changed}${text.slice(token.end)}`;
}

/**
 * The same sentence as a writer may re-format it without changing a fact: full-width digits, thousands separators,
 * small counts of years, days and seconds in Chinese numerals ("2 年" → "两年"), spaces between number and unit dropped.
 */
export function reformat(text: string): string {
  return text
    .replace(/(?<![\d.])(\d+) ?(年|天|秒|个月)/g, (all, n: string, unit: string) => (Number(n) <= 10 ? `${HAN_SMALL[Number(n)]}${unit}` : all))
    // Thousands separators where a writer would put them: not in years, codes or ranges.
    .replace(/(?<![\d.\-a-zA-Z])(\d{4,})(?![\d.\-/年a-zA-Z])/g, (n: string) => (Number(n) >= 1000 && Number(n) <= 2100 ? n : Number(n).toLocaleString('en-US')))
    .replace(/(\d) (GB|MB|元|%)/g, '$1$2')
    .replace(/\d+/g, (digits, offset: number, whole: string) => (whole[offset - 1] === ',' || whole[offset + digits.length] === ',' ? digits : FULL_WIDTH(digits)));
}

/** A draft that cites `quote` (verbatim in document `docIndex`) and says `answer`. */
export const draftOf = (answer: string, quote: string, docIndex = 1): AnswerDraft => ({ answer: `${answer}[1]。`, citations: [{ marker: 1, doc_index: docIndex, quote }] });
