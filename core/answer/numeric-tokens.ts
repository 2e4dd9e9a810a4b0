import type { NumericTokenKind } from '../schemas/answer';
import { CITATION_MARKER } from './sentences';

/*
 * The checkable tokens of a text for the answer check (issue 26 §4): numbers, numbers with a unit, dates and model
 * names, each in a canonical form so that the answer and a quote compare whatever way each writes them. Folding:
 * NFKC (full-width digits and letters become half-width), lower case, thousands separators dropped ("1,299" = 1299),
 * simple Chinese numerals before a unit ("两年" = "2 年", "十五秒" = "15 秒"; digit-by-digit years such as "二〇二四年"
 * too), unit aliases ("10 秒" = "10s", "5 公里" = "5km", "399 块" = "399 元"). No unit conversion: "24 个月" is not "2 年".
 */

export type CheckToken = {
  kind: NumericTokenKind;
  /** As written in the text. */
  surface: string;
  /** number: "2.5"; quantity: "256gb", "2年"; date: "2024-05-01", "2024-05", "05-01", "2024"; model_name: "rtx4090". */
  canonical: string;
  /** The number of a number or quantity (a year's too); null for other dates and model names. */
  value: number | null;
  /** The canonical unit of a quantity, else null. */
  unit: string | null;
  /** Offsets in the original text. */
  start: number;
  end: number;
};

// Canonical unit of each written form. Latin units must not run into a letter ("5 more" has no unit).
const UNIT_ALIASES: Readonly<Record<string, string>> = {
  tb: 'tb', gb: 'gb', mb: 'mb', kb: 'kb', ghz: 'ghz', mhz: 'mhz', khz: 'khz', hz: 'hz', mah: 'mah', ah: 'ah', kwh: 'kwh',
  ms: 'ms', min: 'min', s: 's', h: 'h', kg: 'kg', g: 'g', km: 'km', cm: 'cm', mm: 'mm', m: 'm', kw: 'kw', w: 'w', v: 'v',
  fps: 'fps', p: 'p', k: 'k', '%': '%', '℃': '℃', '°c': '℃',
  元: '元', 块: '元', 美元: '美元', 年: '年', 个月: '月', 月: '月', 周: '周', 天: '天', 日: '天', 小时: 'h', 分钟: 'min',
  秒: 's', 毫秒: 'ms', 毫安时: 'mah', 米: 'm', 公里: 'km', 千米: 'km', 厘米: 'cm', 毫米: 'mm', 克: 'g', 千克: 'kg',
  公斤: 'kg', 倍: '倍', 次: '次', 岁: '岁', 伏: 'v', 瓦: 'w', 英寸: '寸', 寸: '寸', 度: '度', 人: '人', 个: '个', 台: '台',
};
const LATIN_UNIT = /^[a-z]/;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\%]/g, '\\$&');
const UNIT_PATTERN = Object.keys(UNIT_ALIASES)
  .sort((a, b) => b.length - a.length)
  .map((unit) => (LATIN_UNIT.test(unit) ? `${escape(unit)}(?![a-z])` : escape(unit)))
  .join('|');
const UNIT_AFTER = new RegExp(`\\s*(${UNIT_PATTERN})`, 'y');
// Units a Chinese numeral may carry: time, money and measures (not 个/人/台, so "一个" or "一台" stay words).
const HAN_NUMERAL_UNITS = new Set(['年', '个月', '周', '天', '小时', '分钟', '秒', '毫秒', '元', '块', '倍', '次', '岁', '米', '公里', '千米', '厘米', '毫米', '克', '千克', '公斤']);

const HAN_DIGITS: Readonly<Record<string, number>> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
const HAN_MULTIPLIERS: Readonly<Record<string, number>> = { 十: 10, 百: 100, 千: 1000 };

/**
 * The value of a simple Chinese numeral, or null. Below 100,000,000 as written ("三万五千"); a 亿 splits the numeral
 * into hundreds of millions and the rest ("三亿五千万" = 350,000,000; "三万亿" = 3 × 10¹²), for core/offline-policy/quantity-facts.ts.
 */
export function hanNumeralValue(text: string): number | null {
  const yi = text.indexOf('亿');
  if (yi >= 0) {
    const high = yi === 0 ? 1 : hanNumeralValue(text.slice(0, yi));
    const low = yi === text.length - 1 ? 0 : hanNumeralValue(text.slice(yi + 1));
    return high === null || low === null || text.includes('亿', yi + 1) ? null : high * 100_000_000 + low;
  }
  if (!/^[零〇一二两三四五六七八九十百千万]+$/.test(text)) return null;
  // Digit by digit ("二〇二四"): no multiplier at all.
  if (text.length > 1 && !/[十百千万]/.test(text)) return Number([...text].map((char) => HAN_DIGITS[char]).join(''));
  let total = 0;
  let section = 0;
  let digit = 0;
  for (const char of text) {
    if (char in HAN_DIGITS) digit = HAN_DIGITS[char] as number;
    else if (char === '万') {
      total += (section + digit) * 10_000;
      section = 0;
      digit = 0;
    } else {
      section += (digit === 0 ? 1 : digit) * (HAN_MULTIPLIERS[char] as number);
      digit = 0;
    }
  }
  return total + section + digit;
}

type Folded = { text: string; from: number[]; to: number[] };

/** NFKC and lower case character by character, remembering where each folded unit came from. */
function fold(text: string): Folded {
  // Citation markers are not numbers of the answer: blanked, same length, so offsets hold.
  const blanked = text.replace(CITATION_MARKER, (marker) => ' '.repeat(marker.length));
  let folded = '';
  const from: number[] = [];
  const to: number[] = [];
  let at = 0;
  for (const char of blanked) {
    const mapped = char.normalize('NFKC').toLowerCase();
    for (let i = 0; i < mapped.length; i += 1) {
      from.push(at);
      to.push(at + char.length);
    }
    folded += mapped;
    at += char.length;
  }
  return { text: folded, from, to };
}

const pad = (n: string): string => n.padStart(2, '0');
const numberOf = (digits: string): number => Number(digits.replace(/,/g, ''));

type Match = Omit<CheckToken, 'surface' | 'start' | 'end'> & { length: number };

const DATE_YMD = /(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?!\d)\s*[日号]?/y;
const DATE_YM = /(\d{4})\s*年\s*(\d{1,2})\s*月(?!份?\s*\d)/y;
const DATE_MD = /(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/y;
const DATE_Y = /(\d{4})\s*年/y;
const HAN_QUANTITY = /([零〇一二两三四五六七八九十百千万]+)(个月|毫秒|小时|分钟|公里|千米|厘米|毫米|千克|公斤|[年周天秒元块倍次岁米克])/y;
const THOUSANDS = /\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])/y;
const WORD = /[a-z0-9]+(?:[.-][a-z0-9]+)*/y;
const NUMBER = /^\d+(?:\.\d+)?$/;
const NUMBER_WITH_UNIT = /^(\d+(?:\.\d+)?)([a-z]+)$/;

const sticky = (pattern: RegExp, text: string, at: number): RegExpExecArray | null => {
  pattern.lastIndex = at;
  return pattern.exec(text);
};

/**
 * The canonical unit written at the start of `text` (after spaces), with the length it takes there, or null: the
 * same aliases checkTokens reads after a number ("公里" → "km", "美元" → "美元"), for a number whose unit follows a
 * scale word ("1.2万公里").
 */
export function unitAtStart(text: string): { unit: string; length: number } | null {
  const folded = text.normalize('NFKC').toLowerCase();
  // NFKC may change lengths (rare: ligatures); the length is only trusted when it does not.
  if (folded.length !== text.length) return null;
  const found = sticky(UNIT_AFTER, folded, 0);
  return found ? { unit: UNIT_ALIASES[found[1] as string] as string, length: found[0].length } : null;
}

/** A number at `at` (its digits already matched, `length` long), with the unit that follows it if any. */
function quantityAt(text: string, at: number, digits: string): Match {
  const value = numberOf(digits);
  const unit = sticky(UNIT_AFTER, text, at + digits.length);
  if (unit === null) return { kind: 'number', canonical: String(value), value, unit: null, length: digits.length };
  const canonical = UNIT_ALIASES[unit[1] as string] as string;
  return { kind: 'quantity', canonical: `${value}${canonical}`, value, unit: canonical, length: digits.length + unit[0].length };
}

function dateMatch(text: string, at: number): Match | null {
  const ymd = sticky(DATE_YMD, text, at);
  if (ymd) return { kind: 'date', canonical: `${ymd[1]}-${pad(ymd[2] as string)}-${pad(ymd[3] as string)}`, value: null, unit: null, length: ymd[0].length };
  const ym = sticky(DATE_YM, text, at);
  if (ym) return { kind: 'date', canonical: `${ym[1]}-${pad(ym[2] as string)}`, value: null, unit: null, length: ym[0].length };
  const md = sticky(DATE_MD, text, at);
  if (md) return { kind: 'date', canonical: `${pad(md[1] as string)}-${pad(md[2] as string)}`, value: null, unit: null, length: md[0].length };
  const y = sticky(DATE_Y, text, at);
  if (y) return { kind: 'date', canonical: y[1] as string, value: Number(y[1]), unit: null, length: y[0].length };
  return null;
}

type Word = Match | { range: string[]; length: number } | { skip: number };

/**
 * A word of Latin letters and digits at `at`: a number (with the unit after it), a number glued to its unit, a
 * hyphenated range of numbers, a model name, or a word without a digit (skipped).
 */
function wordMatch(text: string, at: number): Word | null {
  const word = sticky(WORD, text, at)?.[0];
  if (word === undefined) return null;
  if (NUMBER.test(word)) return quantityAt(text, at, word);
  const glued = NUMBER_WITH_UNIT.exec(word);
  const unit = glued ? UNIT_ALIASES[glued[2] as string] : undefined;
  if (glued && unit !== undefined) {
    const value = Number(glued[1]);
    return { kind: 'quantity', canonical: `${value}${unit}`, value, unit, length: word.length };
  }
  if (/^\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)+$/.test(word)) return { range: word.split('-'), length: word.length };
  if (/\d/.test(word) && /[a-z]/.test(word)) return { kind: 'model_name', canonical: word.replace(/-/g, ''), value: null, unit: null, length: word.length };
  return { skip: word.length };
}

/** The tokens of `text` in order. */
export function checkTokens(text: string): CheckToken[] {
  const folded = fold(text);
  const source = folded.text;
  const tokens: CheckToken[] = [];
  const push = (match: Match, at: number) => {
    tokens.push({
      kind: match.kind,
      canonical: match.canonical,
      value: match.value,
      unit: match.unit,
      start: folded.from[at] as number,
      end: folded.to[at + match.length - 1] as number,
      surface: text.slice(folded.from[at], folded.to[at + match.length - 1]).trim(),
    });
  };
  let at = 0;
  while (at < source.length) {
    const previous = source[at - 1] ?? ' ';
    const glued = /[a-z0-9.]/.test(previous); // inside a word: not a token start
    if (!glued && /\d/.test(source[at] as string)) {
      const date = dateMatch(source, at);
      const thousands = date ? null : sticky(THOUSANDS, source, at);
      const match = date ?? (thousands ? quantityAt(source, at, thousands[0]) : null);
      if (match) {
        push(match, at);
        at += match.length;
        continue;
      }
    }
    const word = !glued && /[a-z0-9]/.test(source[at] as string) ? wordMatch(source, at) : null;
    if (word !== null && 'skip' in word) {
      at += word.skip;
      continue;
    }
    if (word !== null && 'range' in word) {
      // "3-5 天", "2019-2020": each number, with the unit written after the range.
      const after = sticky(UNIT_AFTER, source, at + word.length);
      const unit = after ? (UNIT_ALIASES[after[1] as string] as string) : null;
      let offset = at;
      for (const part of word.range) {
        const value = Number(part);
        push({ kind: unit ? 'quantity' : 'number', canonical: `${value}${unit ?? ''}`, value, unit, length: part.length }, offset);
        offset += part.length + 1;
      }
      at += word.length + (after?.[0].length ?? 0);
      continue;
    }
    if (word !== null) {
      push(word, at);
      at += word.length;
      continue;
    }
    const han = /[零〇一二两三四五六七八九十百千万]/.test(source[at] as string) ? sticky(HAN_QUANTITY, source, at) : null;
    const hanValue = han ? hanNumeralValue(han[1] as string) : null;
    if (han && hanValue !== null && HAN_NUMERAL_UNITS.has(han[2] as string)) {
      const unit = UNIT_ALIASES[han[2] as string] as string;
      push({ kind: 'quantity', canonical: `${hanValue}${unit}`, value: hanValue, unit, length: han[0].length }, at);
      at += han[0].length;
      continue;
    }
    at += 1;
  }
  return tokens;
}
