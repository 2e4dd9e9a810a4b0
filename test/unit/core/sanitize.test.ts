import { sanitizeDocument, sanitizeText } from '../../../core/ingest/sanitize';

// Expected values follow the original's sanitize_text (spec §6.11); the NFC and order cases were checked in
// CPython 3.11 with unicodedata.normalize and the original's two regexes.
describe('text sanitation (spec §6.11)', () => {
  test('NFC: a decomposed é becomes one code point', () => {
    expect(sanitizeText('cafe\u0301')).toBe('caf\u00e9');
  });

  test('zero-width, BOM and bidi marks are removed', () => {
    expect(sanitizeText('a\u200Bb\u200Cc\u200Dd\uFEFFe\u200Ff\u202Ag\u202Bh\u202Ci\u202Dj\u202Ek')).toBe('abcdefghijk');
  });

  test('neighbours of the removed ranges stay: U+200E (LRM), U+2060, U+2028', () => {
    expect(sanitizeText('a\u200Eb\u2060c\u2028d')).toBe('a\u200Eb\u2060c\u2028d');
  });

  test('C0 controls and DEL are removed; tab, LF and CR are kept', () => {
    const controls = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
    expect(sanitizeText(`x${controls}\x7Fy`)).toBe('x\t\n\ry');
  });

  test('C1 controls (U+0080–U+009F) are kept, as in the original', () => {
    expect(sanitizeText('a\x85b\x9Fc')).toBe('a\x85b\x9Fc');
  });

  test('the Private Use Area U+E000–U+F8FF is removed, but not U+FB00 outside it', () => {
    expect(sanitizeText('\uE000a\uF8FFb\uFB00')).toBe('ab\uFB00');
  });

  test('lone surrogates are dropped; a valid pair (an emoji) is kept', () => {
    expect(sanitizeText('a\uD83Db\uDE00c\uD83D\uDE00')).toBe('abc\uD83D\uDE00');
  });

  test('NFC runs before the removals, as in the original: a removed mark can leave a decomposed pair', () => {
    expect(sanitizeText('e\u200B\u0301')).toBe('e\u0301');
  });

  test('empty stays empty; Chinese text passes unchanged', () => {
    expect(sanitizeText('')).toBe('');
    expect(sanitizeText('检索增强生成，分三层。')).toBe('检索增强生成，分三层。');
  });

  test('a page is stripped (Python whitespace: \\u3000, \\x85, \\x1c) and then sanitized; metadata is sanitized', () => {
    const document = sanitizeDocument({
      filename: 'a\u200Bb.pdf',
      file_path: '/d/a\u200Bb.pdf',
      file_type: 'PDF',
      pages: [{ page_number: 0, text: '\u3000\x85\x1c  正文\u200B内容 \n' }],
    });
    expect(document).toEqual({ filename: 'ab.pdf', file_path: '/d/ab.pdf', file_type: 'PDF', pages: [{ page_number: 0, text: '正文内容' }] });
  });

  test('strip happens before sanitation: a BOM in front of spaces leaves the spaces', () => {
    const [page] = sanitizeDocument({ filename: 'f', file_path: '/f', file_type: 'Text', pages: [{ page_number: 0, text: '\uFEFF  text' }] }).pages;
    expect(page?.text).toBe('  text');
  });
});
