/** Python's `str()` of a scalar, for the places where the original interpolates values into text (spec §10.6). */
export function pythonStr(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}

/** Python's `str.isspace()` characters (JS `\s` differs in a few code points), as a character-class body. */
export const PY_WHITESPACE_CLASS = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const EDGE_WHITESPACE = new RegExp(`^[${PY_WHITESPACE_CLASS}]+|[${PY_WHITESPACE_CLASS}]+$`, 'g');

/** Python's `str.strip()` with no argument. */
export function pyStrip(text: string): string {
  return text.replace(EDGE_WHITESPACE, '');
}
