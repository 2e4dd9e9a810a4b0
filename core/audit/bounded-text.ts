/*
 * Text helpers of the audit builders: bounded strings, a query redactor, and ISO time from a given instant.
 * Pure: no clock; the instant comes from workflow time.
 */

/** Cuts `text` to at most `max` UTF-16 units without splitting a character, marking a cut with "…". */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = '';
  for (const char of text) {
    if (kept.length + char.length > max - 1) break;
    kept += char;
  }
  return `${kept}…`;
}

/** One line: whitespace runs collapsed, then cut to `max`. */
export function oneLine(text: string, max: number): string {
  return cutText(text.replace(/\s+/g, ' ').trim(), max);
}

/**
 * Removes the query from a free text (an error message may echo what was searched), so that rows stay free of
 * query text even when the error came from a store that quotes its input. Any length counts: a two-character query
 * can be a name.
 */
export function redactQuery(text: string, query: string): string {
  const needle = query.trim();
  return needle === '' ? text : text.split(needle).join('[query]');
}

/** ISO-8601 time of an instant in ms (workflow time, passed in). */
export function isoTime(ms: number): string {
  // Formats the instant it is given; it reads no clock, which is what the core/ rule against `new Date` guards.
  // eslint-disable-next-line no-restricted-syntax
  return new Date(ms).toISOString();
}
