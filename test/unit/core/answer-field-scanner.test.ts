import { AnswerFieldScanner } from '../../../core/model-output/answer-field-scanner';
import { AnswerTextEvent } from '../../../core/model-output/answer-text-event';
import { extractJson } from '../../../core/model-output/extract-json';

/*
 * The incremental scanner of the answer field (issue 25 §2, docs/design/streaming-evaluation.md §5): fed a reply's
 * raw fragments split anywhere, it emits the decoded `answer` text as it arrives, and what it emits concatenates to
 * what JSON.parse reads from the whole reply.
 */

/** Feeds the fragments in order; the pieces emitted (empty ones left out). */
const scan = (fragments: string[], field?: string): string[] => {
  const scanner = new AnswerFieldScanner(field);
  return fragments.map((fragment) => scanner.feed(fragment)).filter((piece) => piece !== '');
};
const scanAll = (fragments: string[]) => scan(fragments).join('');

const ANSWERS = [
  '',
  'The capital is Paris [1].',
  '丹瑾是湮灭属性[1]，她擅长近战[2]。',
  'emoji 😀👍🏽 and 🇨🇳 flags, 𝄞 clef',
  'she said "hi" and left',
  'a path C:\\temp\\new and a \\u0041 that is text',
  'lines\nand\ttabs\r\nand a form\ffeed \b',
  'slashes / and </script> and {braces} [1] , : "answer": "no"',
  'control \u0001 \u001f and \u2028 \u2029 separators',
  'a lone high surrogate \ud83d here, and a lone low \ude00 there',
  '"',
  '\\',
  '😀',
  '混合 mixed "引号" \\ 😀\n结束',
];

/** Every non-ASCII code unit written as \uXXXX (as a provider with ASCII-only output writes it). */
const asciiOnly = (json: string) => json.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The ways a reply carrying `answer` arrives, on the ladder's rungs (docs/PROVIDERS.md). */
const SERIALIZATIONS: [string, (answer: string) => string][] = [
  ['json_schema order', (answer) => JSON.stringify({ answer, citations: [{ marker: 1, doc_index: 1, quote: 'q' }] })],
  ['citations first, a nested answer key', (answer) => JSON.stringify({ citations: [{ marker: 1, doc_index: 1, quote: '"answer": "x"', answer: 'decoy' }], answer })],
  ['pretty-printed', (answer) => JSON.stringify({ citations: [], answer }, null, 2)],
  ['ASCII-only escapes', (answer) => asciiOnly(JSON.stringify({ answer, citations: [] }))],
  ['escaped slashes', (answer) => JSON.stringify({ answer, citations: [] }).replace(/\//g, '\\/')],
  ['think block, prose and a fence', (answer) => `<think>先想想 {"answer": "not this"}</think>好的，结果如下：\n\`\`\`json\n${JSON.stringify({ answer, citations: [] })}\n\`\`\``],
];

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Splits text at `count` random positions. */
function randomSplit(text: string, count: number, next: () => number): string[] {
  const cuts = [...new Set(Array.from({ length: count }, () => Math.floor(next() * (text.length + 1))))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}

/** No emitted piece ends with half of a surrogate pair whose other half the next piece starts with. */
function splitsNoPair(pieces: string[]): boolean {
  return pieces.every((piece, i) => {
    const next = pieces[i + 1];
    const last = piece.charCodeAt(piece.length - 1);
    return next === undefined || !(last >= 0xd800 && last <= 0xdbff && next.charCodeAt(0) >= 0xdc00 && next.charCodeAt(0) <= 0xdfff);
  });
}

describe('property: the emitted text is the answer, however the reply is split', () => {
  test.each(SERIALIZATIONS)('%s: split at every position', (_name, serialize) => {
    for (const answer of ANSWERS) {
      const reply = serialize(answer);
      // The serialization is one our validation reads back to the same answer.
      const parsed = extractJson(reply);
      expect(parsed.ok && (parsed.value as { answer: string }).answer).toBe(answer);
      expect(scanAll([reply])).toBe(answer);
      for (let cut = 0; cut <= reply.length; cut += 1) {
        const pieces = scan([reply.slice(0, cut), reply.slice(cut)]);
        if (pieces.join('') !== answer) throw new Error(`split at ${cut} of ${JSON.stringify(reply)}: got ${JSON.stringify(pieces.join(''))}`);
        expect(splitsNoPair(pieces)).toBe(true);
      }
    }
  });

  test.each(SERIALIZATIONS)('%s: 200 random multi-splits per answer, one character at a time too', (_name, serialize) => {
    const next = random(25);
    for (const answer of ANSWERS) {
      const reply = serialize(answer);
      const perCharacter = scan([...reply.split('')]);
      expect(perCharacter.join('')).toBe(answer);
      expect(splitsNoPair(perCharacter)).toBe(true);
      for (let round = 0; round < 200; round += 1) {
        const fragments = randomSplit(reply, 1 + Math.floor(next() * 12), next);
        const pieces = scan(fragments);
        if (pieces.join('') !== answer) throw new Error(`fragments ${JSON.stringify(fragments)}: got ${JSON.stringify(pieces.join(''))}`);
        expect(splitsNoPair(pieces)).toBe(true);
      }
    }
  });

  test('generated answers: random code points (astral, escapes, quotes) through JSON.stringify', () => {
    const next = random(2025);
    const alphabet = ['a', ' ', '"', '\\', '/', '\n', '\t', '\u0000', '丹', '。', '😀', '\u2028', '[1]', 'é', '\ud800', '\udfff'];
    for (let round = 0; round < 300; round += 1) {
      const answer = Array.from({ length: Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      for (const reply of [JSON.stringify({ answer, citations: [] }), asciiOnly(JSON.stringify({ citations: [], answer }))]) {
        expect(scan(randomSplit(reply, 1 + Math.floor(next() * 20), next)).join('')).toBe(answer);
      }
    }
  });
});

describe('streaming behaviour', () => {
  test('text is emitted as it arrives, before the closing quote', () => {
    const scanner = new AnswerFieldScanner();
    expect(scanner.feed('{"answer":"The')).toBe('The');
    expect(scanner.feed(' capital')).toBe(' capital');
    expect(scanner.feed(' [1]')).toBe(' [1]');
    expect(scanner.done).toBe(false);
    expect(scanner.feed('.","citations":[{"marker":1,"doc_index":1,"quote":"x"}]}')).toBe('.');
    expect(scanner.done).toBe(true);
  });

  test('an incomplete escape is held back until the next fragment', () => {
    const scanner = new AnswerFieldScanner();
    expect(scanner.feed('{"answer":"a\\')).toBe('a');
    expect(scanner.feed('nb\\u4e')).toBe('\nb');
    expect(scanner.feed('39')).toBe('丹');
    expect(scanner.feed('\\"')).toBe('"');
  });

  test('a high surrogate waits for its low half (escaped or raw), and a lone one is emitted when the next character is not its pair', () => {
    const escaped = new AnswerFieldScanner();
    expect(escaped.feed('{"answer":"x\\ud83d')).toBe('x');
    expect(escaped.feed('\\ude00')).toBe('😀');
    const raw = new AnswerFieldScanner();
    expect(raw.feed('{"answer":"x\ud83d')).toBe('x');
    expect(raw.feed('\ude00y')).toBe('😀y');
    const lone = new AnswerFieldScanner();
    expect(lone.feed('{"answer":"\\ud83d')).toBe('');
    expect(lone.feed(' ok')).toBe('\ud83d ok');
    expect(lone.feed('\\ud83d"')).toBe('\ud83d'); // the closing quote settles it: the text does end with it
  });

  test('citations first: nothing is emitted until the top-level answer starts, nested "answer" keys ignored', () => {
    const pieces = scan(['{"citations":[{"answer":"no","quote":"{\\"answer\\": \\"no\\"}"}],', '"answer":"yes"}']);
    expect(pieces).toEqual(['yes']);
  });

  test('an "answer" that is a value, not a key, is not the field', () => {
    expect(scanAll(['{"kind":"answer","answer":"yes"}'])).toBe('yes');
    expect(scanAll(['{"kind":"answer"}'])).toBe('');
  });

  test('a key written with escapes is the key JSON reads', () => {
    expect(scanAll(['{"\\u0061nswer":"yes"}'])).toBe('yes');
  });

  test('an answer that is not a string emits nothing', () => {
    expect(scanAll(['{"answer":null,"citations":[]}'])).toBe('');
    expect(scanAll(['{"answer":["a"],"citations":[]}'])).toBe('');
  });

  test('prose with braces before the object: the object without the field is passed over', () => {
    expect(scanAll(['Here is {the result}: ', '{"answer":"yes"}'])).toBe('yes');
  });

  test('a reasoning block split across fragments is skipped, whatever its case', () => {
    expect(scanAll(['<thi', 'nk>{"answer":"no"}</TH', 'INK>{"answer":"yes"}'])).toBe('yes');
  });

  test('after the closing quote nothing more is emitted', () => {
    const scanner = new AnswerFieldScanner();
    expect(scanner.feed('{"answer":"a"}{"answer":"b"}')).toBe('a');
    expect(scanner.feed('"answer":"c"')).toBe('');
  });

  test('another field can be scanned (the hitl prompt, later)', () => {
    expect(scan(['{"route":"hitl","hitl_prompt":"Which mo', 'del?"}'], 'hitl_prompt')).toEqual(['Which mo', 'del?']);
  });
});

test('AnswerTextEvent: a delta or a restart', () => {
  expect(AnswerTextEvent.parse({ kind: 'delta', text: 'a' })).toEqual({ kind: 'delta', text: 'a' });
  expect(AnswerTextEvent.safeParse({ kind: 'restart' }).success).toBe(false);
});
