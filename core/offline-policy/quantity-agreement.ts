import { checkTokens, hanNumeralValue, unitAtStart, type CheckToken } from '../answer/numeric-tokens';
import { englishDates, type DateParts } from './english-dates';

/*
 * Whether two facts a text states are the same fact written another way (issue 42 §4): "131万" and "1,313,851",
 * "$6.04 billion" and "60.4亿美元", "3.5%" and "3.52 %", "2024-05-01" and "May 1, 2024". The numbers are the answer
 * check's canonical tokens (core/answer/numeric-tokens.ts); this module adds what a report's rounding needs: the
 * scale word after a number (万, 亿, thousand, million or mln, billion, k, M, B), a currency as the unit, "pct" as %,
 * the precision a number is written to, and dates with English month names (english-dates.ts). Rules and limits:
 * docs/offline-policy.md, "Corroboration or ambiguity".
 */

/**
 * A fact a sentence states. A quantity's `value` is in its base unit (131万 → 1,310,000), `place` is the decimal
 * place of its last significant digit in that unit (131万 → 10,000; 1.31 million → 10,000; 3.52 → 0.01), and `unit`
 * is the answer check's canonical unit or a currency tag ('usd', 'cny'), null for a bare count. `label`: as a
 * person reads it in a reason.
 */
export type Fact =
  | { kind: 'quantity'; label: string; value: number; place: number; unit: string | null }
  | ({ kind: 'date'; label: string } & DateParts)
  | { kind: 'name'; label: string };

const SCALES: Readonly<Record<string, number>> = {
  万亿: 1e12, 千万: 1e7, 百万: 1e6, 亿: 1e8, 万: 1e4, 千: 1e3,
  thousand: 1e3, million: 1e6, mln: 1e6, mn: 1e6, billion: 1e9, bln: 1e9, bn: 1e9, trillion: 1e12,
};
const SCALE_AFTER = /^\s*(万亿|千万|百万|亿|万|千|thousand|million|mln|mn|billion|bln|bn|trillion)(?![a-z])/i;
// "4.9 pct" and "4.9 percent" are "4.9%" (the answer check reads only the sign).
const PERCENT_AFTER = /^\s*(?:pct|percent|per\s+cent)(?![a-z])/i;
// A currency is the unit: the answer check's 元/美元, and what it does not read (symbols before, other names after).
const CURRENCY_WORDS: Readonly<Record<string, string>> = {
  美元: 'usd', 美金: 'usd', dollar: 'usd', dollars: 'usd', usd: 'usd', 元: 'cny', 人民币: 'cny', yuan: 'cny', rmb: 'cny', cny: 'cny',
  欧元: 'eur', euro: 'eur', euros: 'eur', eur: 'eur', 英镑: 'gbp', 日元: 'jpy', 港元: 'hkd', 港币: 'hkd',
};
const CURRENCY_AFTER = /^\s*(美元|美金|人民币|欧元|英镑|日元|港元|港币|元|dollars?|usd|yuan|rmb|cny|euros?|eur)(?![a-z])/i;
const CURRENCY_BEFORE = /(us\$|\$|€|£|¥|￥|rmb|usd|eur|cny)\s*$/i;
const SYMBOLS: Readonly<Record<string, string>> = { us$: 'usd', $: 'usd', '€': 'eur', '£': 'gbp', '¥': 'cny', '￥': 'cny' };
const CURRENCIES = new Set(Object.values(CURRENCY_WORDS));

/** The unit tag of an answer-check unit: its currencies as tags, every other unit as it is. */
const unitTag = (unit: string | null): string | null => (unit === null ? null : (CURRENCY_WORDS[unit] ?? unit));

/**
 * The decimal place of a written number's last significant digit: its last digit ("3.52" → 0.01, "1,313,851" → 1).
 * A whole number written out is exact — "1,000 元" and "1,200 元" are two prices — so a report rounds with a scale
 * word or decimals ("131万", "1.31 million"), which the scale multiplies.
 */
export function placeOfDigits(digits: string): number {
  const fraction = digits.split('.')[1];
  return fraction ? 10 ** -fraction.length : 1;
}

/** A Chinese numeral is as precise as its last multiplier: "两千三百万" → 1,000,000, "一百二十" → 10. */
const hanPlace = (value: number): number => {
  if (!Number.isInteger(value) || value <= 0) return 1;
  let place = 1;
  while (value % (place * 10) === 0) place *= 10;
  return place;
};

const dateOf = (label: string, canonical: string): Fact => {
  const parts = canonical.split('-').map(Number);
  if (parts.length === 3) return { kind: 'date', label, year: parts[0]!, month: parts[1]!, day: parts[2]! };
  if (parts.length === 2 && canonical.indexOf('-') === 4) return { kind: 'date', label, year: parts[0]!, month: parts[1]!, day: null };
  if (parts.length === 2) return { kind: 'date', label, year: null, month: parts[0]!, day: parts[1]! };
  return { kind: 'date', label, year: parts[0]!, month: null, day: null };
};

/**
 * A number token as a fact: its scale word, its currency, and a bare four-digit number from 1000 to 2100 as a year.
 * `end`: where what it read ends (after "万公里" in "1.2万公里", where the answer check reads a "0km" of its own).
 */
function tokenFact(token: CheckToken, text: string): { fact: Fact; end: number } {
  if (token.kind === 'date') return { fact: dateOf(token.canonical, token.canonical), end: token.end };
  const surface = token.surface.normalize('NFKC');
  const billions = /^(\d+(?:\.\d+)?)\s*b$/i.exec(surface);
  if (token.kind === 'model_name' && !billions) return { fact: { kind: 'name', label: token.canonical }, end: token.end };
  const digits = billions?.[1] ?? /^\d[\d,]*(?:\.\d+)?/.exec(surface)?.[0];
  // "5月" is May and "3日" the 3rd in a report; "5个月" and "3天" are durations.
  const month = /月$/.test(surface) && !/个月$/.test(surface);
  const day = /[日号]$/.test(surface);
  if (token.unit !== null && (month || day) && token.value !== null && Number.isInteger(token.value) && token.value >= 1 && token.value <= (month ? 12 : 31)) {
    return { fact: { kind: 'date', label: surface, year: null, month: month ? token.value : null, day: day ? token.value : null }, end: token.end };
  }
  if (digits === undefined) {
    // A Chinese numeral with its unit ("十五秒").
    const value = token.value ?? 0;
    return { fact: { kind: 'quantity', label: token.canonical, value, place: hanPlace(value), unit: unitTag(token.unit) }, end: token.end };
  }
  let [start, end, scale, unit] = [token.start, token.end, 1, billions ? null : token.unit];
  if (billions) scale = 1e9;
  else if (unit === 'k') [scale, unit] = [1e3, null];
  else if (unit === 'm' && surface.endsWith('M')) [scale, unit] = [1e6, null];
  else if (unit === null) {
    const scaled = SCALE_AFTER.exec(text.slice(end));
    if (scaled) [scale, end] = [SCALES[(scaled[1] as string).toLowerCase()] as number, end + scaled[0].length];
    const after = unitAfter(text.slice(end), scaled !== null);
    if (after) [unit, end] = [after.unit, end + after.length];
  }
  const before = unit === null || CURRENCIES.has(unitTag(unit) as string) ? CURRENCY_BEFORE.exec(text.slice(Math.max(0, start - 4), start)) : null;
  if (before) [unit, start] = [SYMBOLS[(before[1] as string).toLowerCase()] ?? CURRENCY_WORDS[(before[1] as string).toLowerCase()] ?? null, start - before[0].length];
  const value = Number(digits.replace(/,/g, '')) * scale;
  if (token.kind === 'number' && scale === 1 && unit === null && /^\d{4}$/.test(digits) && value >= 1000 && value <= 2100) {
    return { fact: { kind: 'date', label: digits, year: value, month: null, day: null }, end };
  }
  const label = start === token.start && end === token.end && scale === 1 ? token.canonical : text.slice(start, end).trim();
  return { fact: { kind: 'quantity', label, value, place: placeOfDigits(digits) * scale, unit: unitTag(unit) }, end };
}

/** The unit written after a number (or its scale word): a currency name, a percent word, or after a scale word any answer-check unit. */
function unitAfter(rest: string, scaled: boolean): { unit: string; length: number } | null {
  const currency = CURRENCY_AFTER.exec(rest);
  if (currency) return { unit: CURRENCY_WORDS[(currency[1] as string).toLowerCase()] as string, length: currency[0].length };
  const percent = PERCENT_AFTER.exec(rest);
  if (percent) return { unit: '%', length: percent[0].length };
  return scaled ? unitAtStart(rest) : null;
}

// A Chinese numeral with a multiplier, which the answer check reads only before a unit of time, money or measure:
// "两千三百万", "二十人". Not after 第 (an ordinal), and a lone "十" only before a unit ("十分重要" states no number).
const HAN_RUN = /[一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]*/gu;

type Span = { start: number; end: number };

/**
 * The Chinese numerals of `text` that the answer check's tokens (`tokens`) do not read, and those they read only in
 * part ("三亿五千万元", of which the tokens hold "五千万元"): those tokens are `replaced`.
 */
function hanFacts(text: string, tokens: readonly CheckToken[], dates: readonly Span[]): { facts: Array<{ at: number; fact: Fact }>; replaced: Set<CheckToken> } {
  const facts: Array<{ at: number; fact: Fact }> = [];
  const replaced = new Set<CheckToken>();
  const overlaps = (span: Span, start: number, end: number) => start < span.end && end > span.start;
  for (const match of text.matchAll(HAN_RUN)) {
    const [run, start] = [match[0], match.index];
    const end = start + run.length;
    if (!/[十百千万亿]/.test(run) || text[start - 1] === '第' || dates.some((date) => overlaps(date, start, end))) continue;
    const under = tokens.filter((token) => overlaps(token, start, end));
    // A token the run extends to the left is a Chinese numeral's tail; any other token reads this text already.
    if (under.some((token) => token.start <= start || /\d/.test(token.surface))) continue;
    const value = hanNumeralValue(run);
    const unit = unitAfter(text.slice(end), true);
    if (value === null || value === 0 || (run.length === 1 && unit === null)) continue;
    const label = text.slice(start, end + (unit?.length ?? 0)).trim();
    facts.push({ at: start, fact: { kind: 'quantity', label, value, place: hanPlace(value), unit: unitTag(unit?.unit ?? null) } });
    for (const token of under) replaced.add(token);
  }
  return { facts, replaced };
}

/** The tokens' facts; a token inside what an earlier one read (its scale word and unit) is no fact of its own. */
function tokenFacts(tokens: readonly CheckToken[], text: string): Array<{ at: number; fact: Fact }> {
  const facts: Array<{ at: number; fact: Fact }> = [];
  let readTo = 0;
  for (const token of tokens) {
    if (token.start < readTo) continue;
    const { fact, end } = tokenFact(token, text);
    facts.push({ at: token.start, fact });
    readTo = Math.max(token.end, end);
  }
  return facts;
}

/** The facts `text` states, in order: numbers and quantities in base units, dates however written, model names. */
export function readFacts(text: string): Fact[] {
  const dates = englishDates(text);
  const inDate = (token: CheckToken) => dates.some((date) => token.start < date.end && token.end > date.start);
  const tokens = checkTokens(text).filter((token) => !inDate(token));
  const han = hanFacts(text, tokens, dates);
  const facts = [
    ...dates.map((date) => ({ at: date.start, fact: { kind: 'date', label: date.surface, year: date.year, month: date.month, day: date.day } as Fact })),
    ...tokenFacts(tokens.filter((token) => !han.replaced.has(token)), text),
    ...han.facts,
  ];
  return facts.sort((a, b) => a.at - b.at).map(({ fact }) => fact);
}

const DATE_PARTS = ['year', 'month', 'day'] as const;

/**
 * Whether two facts agree: true, false, or null when they are not comparable (different kinds, units of different
 * things, dates that share no part). Quantities of one unit (or a currency and a bare number) agree when the less
 * precise one equals the other rounded to its place: 131万 (place 10,000) = round(1,313,851 to 10,000). Dates agree
 * when every part both write is equal ("5月1日" = "2024-05-01"). Model names agree when equal.
 */
export function factsAgree(a: Fact, b: Fact): boolean | null {
  if (a.kind === 'quantity' && b.kind === 'quantity') {
    const comparable = a.unit === b.unit || (a.unit === null && CURRENCIES.has(b.unit ?? '')) || (b.unit === null && CURRENCIES.has(a.unit ?? ''));
    if (!comparable) return null;
    const [coarse, fine] = a.place >= b.place ? [a, b] : [b, a];
    return Math.abs(Math.round(fine.value / coarse.place) * coarse.place - coarse.value) <= coarse.place * 1e-6;
  }
  if (a.kind === 'date' && b.kind === 'date') {
    const shared = DATE_PARTS.filter((part) => a[part] !== null && b[part] !== null);
    return shared.length === 0 ? null : shared.every((part) => a[part] === b[part]);
  }
  if (a.kind === 'name' && b.kind === 'name') return a.label === b.label;
  return null;
}

/**
 * Whether `fact` only repeats what `asked` (a fact of the question) says: they agree, and `fact` is no more precise
 * (a question's "2024年" does not restate "2024年5月1日", which answers it).
 */
export function restates(asked: Fact, fact: Fact): boolean {
  if (factsAgree(asked, fact) !== true) return false;
  if (asked.kind === 'date' && fact.kind === 'date') return DATE_PARTS.every((part) => fact[part] === null || asked[part] !== null);
  if (asked.kind === 'quantity' && fact.kind === 'quantity') return fact.place >= asked.place;
  return true;
}
