/*
 * Python's text semantics where the original's behaviour depends on them: str(), str.strip(), int(), float().
 * JS differs in small ways (trim() strips U+FEFF but not \x1c–\x1f or \x85), and parity needs the Python rules.
 */

/** Python's `str()` of a scalar, for the places where the original interpolates values into text (spec §10.6). */
export function pythonStr(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}

// Python's str.isspace() set, which str.strip() removes (JS \s differs: it has \ufeff, lacks \x1c-\x1f and \x85).
// int() and float() skip the same set except \x1c-\x1f (checked against CPython 3.11).
const PY_NUMBER_SPACE = '\\t\\n\\v\\f\\r\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** Python's `str.isspace()` characters, which `str.strip()` and `re`'s `\s` use, as a character-class body. */
export const PY_WHITESPACE_CLASS = `${PY_NUMBER_SPACE}\\x1c-\\x1f`;
const PY_EDGE_SPACE = new RegExp(`^[${PY_WHITESPACE_CLASS}]+|[${PY_WHITESPACE_CLASS}]+$`, 'g');
const PY_NUMBER_EDGE_SPACE = new RegExp(`^[${PY_NUMBER_SPACE}]+|[${PY_NUMBER_SPACE}]+$`, 'g');
const PY_DIGITS = '\\d(?:_?\\d)*'; // ASCII digits; single underscores between digits are allowed (PEP 515)
const PY_INT = new RegExp(`^[+-]?${PY_DIGITS}$`);
const PY_MANTISSA = `(?:${PY_DIGITS}(?:\\.(?:${PY_DIGITS})?)?|\\.${PY_DIGITS})`;
const PY_FLOAT = new RegExp(`^[+-]?${PY_MANTISSA}(?:[eE][+-]?${PY_DIGITS})?$`);

/** Python's `str.strip()` without arguments. */
export function pythonStrip(text: string): string {
  return text.replace(PY_EDGE_SPACE, '');
}

/**
 * Python's `int(text)`, or null where it raises: "+3", " 3 ", "1_000", "007" parse; "", "3.0", "1e3", "0x10" do not.
 * Also null, unlike Python: non-ASCII digits ("３") and values beyond ±2^53, which a JS number cannot hold exactly.
 */
export function pythonInt(text: string): number | null {
  const body = text.replace(PY_NUMBER_EDGE_SPACE, '');
  if (!PY_INT.test(body)) return null;
  const value = Number(body.replace(/_/g, '')) + 0; // + 0 turns "-0" into 0, as Python's int does
  return Number.isSafeInteger(value) ? value : null;
}

/**
 * Python's `float(text)`, or null where it raises: " 2.5 ", "1e-3", "1.", ".5", "+1_0" parse; "", "abc", "1e", "1,5"
 * do not. Also null, unlike Python: "inf", "nan" and overflow, which JSON (traces, histories) cannot carry.
 */
export function pythonFloat(text: string): number | null {
  const body = text.replace(PY_NUMBER_EDGE_SPACE, '');
  if (!PY_FLOAT.test(body)) return null;
  const value = Number(body.replace(/_/g, ''));
  return Number.isFinite(value) ? value : null;
}

