import { DocumentMeta, META_MAX_VALUES, MetaKey, MetaValue } from './document-meta';

/*
 * The YAML front matter of a Markdown document (issue 44 §1) as metadata: the block between a first line `---` and
 * the next `---` (or `...`). What metadata can hold is read: `key: value`, `key: [a, b]` and a key followed by
 * `- item` lines; numbers and booleans become their text. Anything else (nested maps, multi-line strings, keys that
 * are not metadata keys) is skipped and named in `skipped`, never a failure: the document is ingested as before.
 * `body` is the text after the block (the whole text without one): what is chunked, so that the YAML is not evidence.
 */

export type FrontMatter = { meta: DocumentMeta; skipped: string[]; body: string };

const unquote = (text: string) => {
  const t = text.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) return t.slice(1, -1);
  return t;
};

/** `[a, "b", c]` → its items; anything else → one value. Empty and `null`/`~` values are none. */
function valuesOf(text: string): string[] {
  const t = text.trim();
  const items = t.startsWith('[') && t.endsWith(']') ? t.slice(1, -1).split(',') : [t];
  return items.map(unquote).filter((value) => value !== '' && value !== 'null' && value !== '~');
}

/** The front matter block's lines and the text after it, or null when the text does not start with one. */
function blockOf(text: string): { lines: string[]; body: string } | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return null;
  const end = lines.findIndex((line, i) => i > 0 && (line.trim() === '---' || line.trim() === '...'));
  return end < 0 ? null : { lines: lines.slice(1, end), body: lines.slice(end + 1).join('\n') };
}

export function readFrontMatter(text: string): FrontMatter {
  const block = blockOf(text);
  const meta: Record<string, string[]> = {};
  const skipped: string[] = [];
  if (block === null) return { meta, skipped, body: text };
  let listKey: string | null = null;
  const opened: string[] = [];
  for (const line of block.lines) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey !== null) {
      meta[listKey] = [...(meta[listKey] ?? []), ...valuesOf(item[1]!)];
      continue;
    }
    listKey = null;
    const pair = /^([^\s:#][^:]*):(?:\s+(.*)|\s*)$/.exec(line);
    if (!pair || /^\s/.test(line)) {
      skipped.push(line.trim());
      continue;
    }
    const key = MetaKey.safeParse(pair[1]);
    if (!key.success) {
      skipped.push(pair[1]!.trim());
      continue;
    }
    const rest = (pair[2] ?? '').trim();
    if (rest === '' || rest === '|' || rest === '>') {
      // A list follows (or a block string, which is skipped when no `- item` comes).
      listKey = key.data;
      opened.push(key.data);
      continue;
    }
    meta[key.data] = valuesOf(rest);
  }
  skipped.push(...opened.filter((key) => !(key in meta)));
  const kept: DocumentMeta = {};
  for (const [key, values] of Object.entries(meta)) {
    const valid = values.filter((value) => MetaValue.safeParse(value).success).slice(0, META_MAX_VALUES);
    if (valid.length > 0) kept[key] = valid;
    else skipped.push(key);
  }
  const checked = DocumentMeta.safeParse(kept);
  return checked.success ? { meta: checked.data, skipped, body: block.body } : { meta: {}, skipped: [...skipped, ...Object.keys(kept)], body: block.body };
}
