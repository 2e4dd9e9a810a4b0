import { z } from 'zod';

/*
 * The original validates traces with pydantic's default (lax) mode. These scalars reproduce the coercions that
 * matter for trace parity (spec §5): integral floats and integer strings become ints, numeric strings and ints
 * become floats, the usual boolean spellings become booleans. Anything else fails, as it does in pydantic.
 */

const INTEGER_TEXT = /^\s*[+-]?\d+(_\d+)*\s*$/;
const FLOAT_TEXT = /^\s*[+-]?(\d+(_\d+)*(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$|^\s*[+-]?(inf|infinity|nan)\s*$/i;
const TRUE_TEXT = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_TEXT = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

function parseFloatText(text: string): number {
  const cleaned = text.trim().replace(/_/g, '').toLowerCase();
  if (cleaned.endsWith('inf') || cleaned.endsWith('infinity')) return cleaned.startsWith('-') ? -Infinity : Infinity;
  return Number(cleaned);
}

export const LaxInt = z.union([
  z.number().int(),
  z.string().regex(INTEGER_TEXT).transform((text) => Number(text.trim().replace(/_/g, ''))),
]);

export const LaxFloat = z.union([
  z.number(),
  z.string().regex(FLOAT_TEXT).transform(parseFloatText),
]);

export const LaxBool = z.union([
  z.boolean(),
  z.literal(0).transform(() => false),
  z.literal(1).transform(() => true),
  z.string().refine((text) => TRUE_TEXT.has(text.trim().toLowerCase()) || FALSE_TEXT.has(text.trim().toLowerCase()), {
    message: 'Invalid boolean text',
  }).transform((text) => TRUE_TEXT.has(text.trim().toLowerCase())),
]);

/** `str | int` as pydantic's smart union treats it: strings stay strings, integers (or integral floats) stay ints. */
export const LaxStrOrInt = z.union([z.string(), z.number().int()]);
