/*
 * The text of one top-level string field of a JSON reply, decoded as the reply streams in (issue 25 §2,
 * docs/design/streaming-evaluation.md §5). Fed the raw fragments a provider sends (`delta.content`, or a tool call's
 * `arguments` on the tools rung), split anywhere: inside a key, an escape, a `\uXXXX` or a surrogate pair. It finds
 * the field at the top level of the first object, skipping what may come before it on the lower rungs (a
 * `<think>…</think>` block, a line of prose, a code fence), whatever keys come first (`citations` before `answer` on a
 * non-strict rung) and any key of that name nested deeper; it stops at the field's closing quote.
 *
 * One pass, constant work per character, so a long answer costs what its length does (the SDK's partial parse is
 * throttled and reparsing the whole snapshot per token would be quadratic). Nothing is validated here: the reply is
 * still parsed and checked by its zod schema once complete, and what was emitted is only a preview of it.
 */

type State = 'seek' | 'object' | 'value' | 'done';

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HEX4 = /^[0-9a-fA-F]{4}$/;
const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

export class AnswerFieldScanner {
  private state: State = 'seek';
  /** The last characters seen outside an object, lower-cased, to find `<think>` and `</think>` across fragments. */
  private tail = '';
  private thinking = false;
  /** Inside the first object: nesting depth, and the string being skipped (or read, for a top-level key). */
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  private keyRaw: string | null = null;
  /** The top-level key just read, until its value starts. */
  private key: string | null = null;
  private afterColon = false;
  /** In the field's value: an escape not yet complete (`\`, `\u00`), and a high surrogate waiting for its pair. */
  private escape = '';
  private held = '';

  constructor(private readonly field = 'answer') {}

  /** True once the field's closing quote has been read: nothing more will be emitted. */
  get done(): boolean {
    return this.state === 'done';
  }

  /** Reads one fragment; returns the field's text it completes (possibly empty). */
  feed(fragment: string): string {
    let out = this.held;
    this.held = '';
    let i = 0;
    while (i < fragment.length && this.state !== 'done') {
      if (this.state === 'value') {
        const [text, next] = this.readValue(fragment, i);
        out += text;
        i = next;
        continue;
      }
      const ch = fragment[i] as string;
      if (this.state === 'seek') this.seek(ch);
      else this.scanObject(ch);
      i += 1;
    }
    // A high surrogate at the end may be half of a pair the next fragment completes: never emit half a character.
    if (this.state === 'value' && out.length > 0 && isHighSurrogate(out.charCodeAt(out.length - 1))) {
      this.held = out.slice(-1);
      out = out.slice(0, -1);
    }
    return out;
  }

  /** Before the object: skip reasoning blocks and any prose or fence until a `{`. */
  private seek(ch: string): void {
    this.tail = (this.tail + ch.toLowerCase()).slice(-THINK_CLOSE.length);
    if (this.thinking) {
      if (this.tail.endsWith(THINK_CLOSE)) this.thinking = false;
      return;
    }
    if (this.tail.endsWith(THINK_OPEN)) this.thinking = true;
    else if (ch === '{') {
      this.state = 'object';
      this.depth = 1;
      this.expectKey = true;
    }
  }

  /** Inside the object: strings skipped (top-level keys read), depth counted, the field's value found. */
  private scanObject(ch: string): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (ch === '\\') this.escaped = true;
      else if (ch === '"') {
        this.inString = false;
        if (this.keyRaw !== null) {
          this.key = decodeKey(this.keyRaw);
          this.keyRaw = null;
        }
        return;
      }
      if (this.keyRaw !== null) this.keyRaw += ch;
      return;
    }
    if (/\s/.test(ch)) return;
    if (this.depth === 1 && this.afterColon) {
      this.afterColon = false;
      const isField = this.key === this.field;
      this.key = null;
      if (isField && ch === '"') {
        this.state = 'value';
        return;
      }
    }
    if (ch === '"') {
      this.inString = true;
      if (this.depth === 1 && this.expectKey) {
        this.expectKey = false;
        this.keyRaw = '';
      }
    } else if (ch === ':' && this.depth === 1 && this.key !== null) this.afterColon = true;
    else if (ch === ',' && this.depth === 1) this.expectKey = true;
    else if (ch === '{' || ch === '[') this.depth += 1;
    else if (ch === '}' || ch === ']') {
      this.depth -= 1;
      // An object without the field (a `{…}` in prose before the real one): look for the next.
      if (this.depth === 0) this.reset();
    }
  }

  /** Decodes the field's value from `start` up to the fragment's end or the closing quote. */
  private readValue(fragment: string, start: number): [string, number] {
    let out = '';
    let i = start;
    while (i < fragment.length) {
      if (this.escape !== '') {
        this.escape += fragment[i] as string;
        i += 1;
        out += this.completeEscape();
        continue;
      }
      const quote = fragment.indexOf('"', i);
      const backslash = fragment.indexOf('\\', i);
      const stop = quote < 0 ? backslash : backslash < 0 ? quote : Math.min(quote, backslash);
      if (stop < 0) return [out + fragment.slice(i), fragment.length];
      out += fragment.slice(i, stop);
      i = stop + 1;
      if (stop === quote) {
        this.state = 'done';
        return [out, i];
      }
      this.escape = '\\';
    }
    return [out, i];
  }

  /** The text of the escape read so far once it is complete, else '' (and the escape stays pending). */
  private completeEscape(): string {
    const kind = this.escape[1] as string;
    if (kind !== 'u') {
      this.escape = '';
      // An unknown escape is not JSON (the reply will be re-asked); its character is shown as written.
      return SIMPLE_ESCAPES[kind] ?? kind;
    }
    if (this.escape.length < 6) return '';
    const hex = this.escape.slice(2);
    this.escape = '';
    return HEX4.test(hex) ? String.fromCharCode(parseInt(hex, 16)) : `\\u${hex}`;
  }

  private reset(): void {
    this.state = 'seek';
    this.tail = '';
    this.expectKey = false;
    this.key = null;
    this.afterColon = false;
  }
}

/** A key as JSON reads it (a key may be written with escapes, `"\u0061nswer"`); an undecodable one matches nothing. */
function decodeKey(raw: string): string | null {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return null;
  }
}
