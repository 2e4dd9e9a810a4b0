/*
 * Dates written with an English month name ("May 1, 2024", "1 May 2024", "Sept. 3", "May 2024"), which the answer
 * check's tokens (core/answer/numeric-tokens.ts) read as loose numbers. For corroboration only (quantity-agreement.ts):
 * the answer check keeps its tokens as they are. The month name must be capitalized, so the verb "may" is no month.
 */

/** A date's parts as written; a part not written is null ("5月1日" has no year). */
export type DateParts = { year: number | null; month: number | null; day: number | null };

export type EnglishDate = DateParts & { start: number; end: number; surface: string };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const FULL = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
// Full names first, then "Sept" before "Sep", then the three-letter forms; an optional dot after a short form.
const MONTH = `(${[...FULL, 'Sept', ...MONTHS].join('|')})\\.?`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?(?!\\d)';
const YEAR = '(\\d{4})(?!\\d)';
// "1 May 2024" | "May 1, 2024" | "May 2024": day and year optional where a person leaves them out.
const ENGLISH_DATE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${DAY}\\s+${MONTH}(?:,?\\s+${YEAR})?|${MONTH}\\s+${DAY}(?:,?\\s+${YEAR})?|${MONTH},?\\s+${YEAR})(?![\\p{L}])`,
  'gu',
);

const monthNumber = (name: string): number => {
  const short = name.slice(0, 3);
  return MONTHS.indexOf(short) + 1;
};

/** The English dates of `text`, in order, with their offsets. A day outside 1–31 makes no date. */
export function englishDates(text: string): EnglishDate[] {
  const dates: EnglishDate[] = [];
  for (const match of text.matchAll(ENGLISH_DATE)) {
    const [surface, dayA, monthA, yearA, monthB, dayB, yearB, monthC, yearC] = match;
    const month = monthNumber((monthA ?? monthB ?? monthC) as string);
    const day = dayA ?? dayB;
    const year = yearA ?? yearB ?? yearC;
    if (day !== undefined && (Number(day) < 1 || Number(day) > 31)) continue;
    dates.push({
      year: year === undefined ? null : Number(year),
      month,
      day: day === undefined ? null : Number(day),
      start: match.index,
      end: match.index + surface.length,
      surface,
    });
  }
  return dates;
}
