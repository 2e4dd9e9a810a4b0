/*
 * The JSON object in a model's text (issue 24 §1). On the json_object and prompt rungs, and from providers that wrap
 * replies, the object may sit behind a reasoning block (<think>…</think>), inside a code fence, or after a line of
 * prose. Nothing is repaired: the first complete object is taken as written, or the reply is not JSON.
 */

export type Extracted = { ok: true; value: unknown } | { ok: false; why: string };

const THINK_BLOCK = /<think>[\s\S]*?<\/think>/gi;
const FENCE = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/;

export function extractJson(text: string): Extracted {
  const visible = text.replace(THINK_BLOCK, '').trim();
  if (visible === '') return { ok: false, why: text.trim() === '' ? 'returned an empty reply' : 'returned only a reasoning block' };
  try {
    return { ok: true, value: JSON.parse(visible) as unknown };
  } catch (error) {
    const fenced = FENCE.exec(visible)?.[1];
    const candidate = fenced ?? firstObject(visible);
    if (candidate !== null) {
      try {
        return { ok: true, value: JSON.parse(candidate) as unknown };
      } catch {
        // fall through to the first error, which describes the reply as it came
      }
    }
    return { ok: false, why: `replied with text that is not JSON (${(error as Error).message})` };
  }
}

/** The first balanced {…} of the text (strings and escapes respected), or null. */
function firstObject(text: string): string | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i += 1;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth += 1;
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}
