import { normalizeForMatch } from '../../core/answer/verify-answer';

/*
 * The documented, deterministic transformations that make "another report of the same fact" out of one news text
 * (issue 42 §7; sets news-zh, news-en, two-part). Pure: strings in, strings out.
 *
 * Two ways of writing the numbers of a report:
 * - `exact`: the same value in another notation. Chinese: 1313851 → 1,313,851; 1,000 → 1000; 131万 → 1,310,000;
 *   11.42亿 → 1,142,000,000; 2008年5月12日 → 2008-05-12. English: 1.50 dlrs → $1.50; 88 mln dlrs → $88 million;
 *   64 Canadian cts → 64 Canadian cents; 10.8 pct → 10.8%; 15.8 mln bpd → 15.8 million bpd; Feb 26 → February 26.
 * - `rounded`: the value as a shorter report states it. Chinese: 1313851 → 131.4万; 4.81万 → 4.8万; 11.42亿 → 11.4亿;
 *   2008年5月12日 → 2008年5月 (not inside a range such as 5月11日至13日). English: 6,036 mln → 6.04 billion;
 *   1.50 dlrs → 1.5 dlrs; 16.00 dlrs → 16 dlrs; 3,677,272 → 3.68 mln; 258,591 → 259,000; 12.217 billion →
 *   12.2 billion; 10.8 pct → 10.8 percent.
 * Years (2008年, 1987) and numbers inside codes (G1234, 3.7495/98, 6-1/4) are never touched.
 */

export type NumberStyle = 'exact' | 'rounded';

/** "1313851" → "1,313,851" (the integer part only; a decimal part is kept as it is). */
export function groupThousands(digits: string): string {
  const [int, frac] = digits.split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

/** "11.42" × 10^8 → "1142000000", by moving the decimal point (no floating point). */
export function scaleDecimal(value: string, zeros: number): string {
  const [int, frac = ''] = value.split('.');
  const digits = `${int}${frac.padEnd(zeros, '0')}`;
  const point = int!.length + zeros;
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  const rest = digits.slice(point).replace(/0+$/, '');
  return rest === '' ? whole : `${whole}.${rest}`;
}

/** A rounded value without trailing zeros: 131.40 → "131.4", 2.0 → "2". */
export function trimmed(value: number, decimals: number): string {
  const fixed = value.toFixed(decimals);
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

const decimalsOf = (value: string) => value.split('.')[1]?.length ?? 0;

/** Chinese "X万" or "X亿" as a plain number, or rounded to one fewer decimal. */
function chineseUnit(yi: string | undefined, wan: string | undefined, style: NumberStyle): string {
  if (style === 'exact') {
    const total = BigInt(scaleDecimal(yi ?? '0', 8).split('.')[0]!) + BigInt(scaleDecimal(wan ?? '0', 4).split('.')[0]!);
    return groupThousands(total.toString());
  }
  if (yi !== undefined && wan !== undefined) return `${trimmed(Number(yi) + Number(wan) / 1e4, 2)}亿`; // 4亿5000万 → 4.5亿
  const value = (yi ?? wan)!;
  const unit = yi !== undefined ? '亿' : '万';
  const decimals = decimalsOf(value);
  return decimals === 0 ? `${value}${unit}` : `${trimmed(Number(value), decimals - 1)}${unit}`;
}

/** A plain integer of ≥ 10,000 written in 万 or 亿, to one or two decimals. */
function chineseRounded(n: number): string {
  return n >= 1e8 ? `${trimmed(n / 1e8, 2)}亿` : `${trimmed(n / 1e4, 1)}万`;
}

const RANGE = '至到\\-－—~～';
const CJK_NUMBER = new RegExp(
  [
    // 1: a date 2008年5月12日 (2: year, 3: month, 4: day)
    '((\\d{4})年(\\d{1,2})月(\\d{1,2})日)',
    // 5: 4亿5000万 / 11.42亿 / 131万 (6: 亿 part, 7: 万 part)
    '(?<![\\d.,])(?=\\d+(?:\\.\\d+)?[万亿])((?:(\\d+(?:\\.\\d+)?)亿)?(?:(\\d+(?:\\.\\d+)?)万)?)',
    // 8: a grouped integer 1,313,851
    '(?<![\\w.,])(\\d{1,3}(?:,\\d{3})+)(?![\\d,]|\\.\\d)',
    // 9: a plain integer of 5 or more digits, not a year and not in a code
    '(?<![\\w.,/\\-])(\\d{5,})(?![\\d年.,/])',
  ].join('|'),
  'gu',
);

/** The numbers and dates of a Chinese text written in `style` (see the header). */
export function rewriteChineseNumbers(text: string, style: NumberStyle): string {
  return text.replace(CJK_NUMBER, (match, date, year, month, day, unit, yi, wan, grouped, plain, offset: number, whole: string) => {
    if (date !== undefined) {
      if (style === 'exact') return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
      const before = whole.slice(Math.max(0, offset - 1), offset);
      const after = whole.slice(offset + match.length, offset + match.length + 1);
      const inRange = new RegExp(`[${RANGE}]`).test(before) || new RegExp(`[${RANGE}]`).test(after);
      return inRange ? match : `${year}年${month}月`;
    }
    if (unit !== undefined) return chineseUnit(yi, wan, style);
    if (grouped !== undefined) {
      const n = Number(grouped.replace(/,/g, ''));
      return style === 'exact' ? grouped.replace(/,/g, '') : n >= 1e4 ? chineseRounded(n) : grouped.replace(/,/g, '');
    }
    return style === 'exact' ? groupThousands(plain) : chineseRounded(Number(plain));
  });
}

const MONTHS: Record<string, string> = {
  jan: 'January', feb: 'February', mar: 'March', apr: 'April', may: 'May', jun: 'June',
  jul: 'July', aug: 'August', sep: 'September', oct: 'October', nov: 'November', dec: 'December',
};
const NUM = '(\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d*\\.\\d+|\\d+)';
const BEFORE = '(?<![\\w.,/$-])';
const AFTER = '(?![\\w/]|[.,]\\d)';
const at = (pattern: string) => new RegExp(`${BEFORE}${NUM}${pattern}`, 'g');

/** Exact other notation of Reuters' numbers, dates and units (see the header). */
function englishExact(text: string): string {
  return text
    .replace(at(' (mln|billion) (U\\.S\\. |Canadian )?dlrs?\\b'), (_m, n: string, scale: string, cur = '') => `${cur === 'Canadian ' ? 'C$' : '$'}${n} ${scale === 'mln' ? 'million' : 'billion'}`)
    .replace(at(' (U\\.S\\. |Canadian )?dlrs?\\b'), (_m, n: string, cur = '') => `${cur === 'Canadian ' ? 'C$' : '$'}${n.replace(/^\./, '0.')}`)
    .replace(at(' (Canadian )?cts\\b'), (_m, n: string, cur = '') => `${n} ${cur}cents`)
    .replace(at(' pct\\b'), (_m, n: string) => `${n}%`)
    .replace(at(' mln\\b'), (_m, n: string) => `${n} million`)
    .replace(/\b(JAN|FEB|MAR|APR|JUN|JUL|AUG|SEP|OCT|NOV|DEC|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\.? (\d{1,2})\b(?!,\d)/g, (_m, mon: string, day: string) => `${MONTHS[mon.toLowerCase()]} ${day}`);
}

/** Reuters' numbers as a shorter report rounds them (see the header). */
function englishRounded(text: string): string {
  return text
    .replace(at(` (mln|billion)${AFTER}`), (m, n: string, scale: string) => {
      const value = Number(n.replace(/,/g, ''));
      if (scale === 'mln' && value >= 1000) return `${trimmed(value / 1000, 2)} billion`;
      return decimalsOf(n) >= 3 ? `${trimmed(value, 1)} ${scale}` : m;
    })
    .replace(at(` (dlrs?|cts)${AFTER}`), (_m, n: string, unit: string) => `${n.includes('.') ? trimmed(Number(n.replace(/,/g, '')), 2) : n} ${unit}`)
    .replace(new RegExp(`${BEFORE}(\\d{1,3}(?:,\\d{3})+)${AFTER}(?! (?:mln|billion))`, 'g'), (m, n: string) => {
      const value = Number(n.replace(/,/g, ''));
      if (value >= 1e6) return `${trimmed(value / 1e6, 2)} mln`;
      return value >= 1e4 ? groupThousands(String(Math.round(value / 1000) * 1000)) : m;
    })
    .replace(at(' pct\\b'), (_m, n: string) => `${n} percent`);
}

/** The numbers and dates of an English (Reuters) text written in `style`. */
export const rewriteEnglishNumbers = (text: string, style: NumberStyle): string => (style === 'exact' ? englishExact(text) : englishRounded(text));

/** Chinese sentences (ending in 。！？, a last one without its stop kept). */
export const chineseSentences = (text: string): string[] => text.split(/(?<=[。！？])/u).filter((s) => s.trim() !== '');

/** The items moved by `by` places: rotate([a,b,c], 1) = [b,c,a]; rotate(…, -1) = [c,a,b]. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length < 2) return [...items];
  const k = ((by % items.length) + items.length) % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * Two questions of one article asked as one (two-part set). Template: "<q1>？另外，<q2>？" — each question without
 * its final stop; when q2 opens with the article's subject that q1 also names, the subject (and a 的 after it) is
 * dropped from q2, as a person asking the second part of one question would ("龙烟铁路什么时候开通运营？另外，项目工程
 * 投资总额约为多少？").
 */
export function joinQuestions(q1: string, q2: string, subject: string): string {
  const bare = (q: string) => q.trim().replace(/[\s？?。．.！!]+$/u, '');
  let second = bare(q2);
  const first = bare(q1);
  if (subject.length >= 2 && first.includes(subject) && second.startsWith(subject) && second.length > subject.length + 2) {
    second = second.slice(subject.length).replace(/^的/, '');
  }
  return `${first}？另外，${second}？`;
}

/**
 * The absence check of an unanswerable question: which of `probes` occur in the documents. A probe is a list of
 * strings that together would state the fact: one string (an answer, "16.50 dlrs") must not occur in any document;
 * several ("Stanwell", "dlrs") must not occur together in any one sentence. Chinese probes are compared as the
 * citation verifier compares quotes (normalizeForMatch: width, punctuation form, case, white space); a probe with
 * Latin letters is compared case-blind from the start of a word ("NECO" is not found in "one company", "Argentin"
 * is found in "Argentine").
 */
export function presentProbes(probes: ReadonlyArray<readonly string[]>, documents: ReadonlyArray<{ text: string }>): string[] {
  const sentences = documents.flatMap((d) =>
    d.text
      .replace(/([^\n])\n(?!\n)/g, '$1 ')
      .split(/(?<=[.!?。！？；;])\s+|(?<=[。！？；])|\n+/u),
  );
  const whole = documents.map((d) => d.text).join('\n');
  return probes.filter((probe) => probe.length > 0 && (probe.length === 1 ? occurs(probe[0]!, whole) : sentences.some((s) => probe.every((p) => occurs(p, s))))).map((probe) => probe.join(' + '));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `needle` occurs in `text` (see presentProbes for how). */
export function occurs(needle: string, text: string): boolean {
  if (!/[A-Za-z]/.test(needle)) {
    const n = normalizeForMatch(needle);
    return n !== '' && normalizeForMatch(text).includes(n);
  }
  const words = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return new RegExp(`(?<![a-z0-9])${escapeRegExp(words(needle))}`).test(words(text));
}
