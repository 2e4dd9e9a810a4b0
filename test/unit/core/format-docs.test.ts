import { formatDocs } from '../../../core/graph/format-docs';

describe('formatDocs (spec §4.4.2)', () => {
  test('empty list → ""', () => {
    expect(formatDocs([])).toBe('');
  });

  test('numbered entries joined by a blank line, ---, a blank line', () => {
    expect(
      formatDocs([
        { filename: 'a.pdf', page_number: 1, text: 'alpha' },
        { filename: 'b.md', page_number: 'iv', text: 'beta' },
      ]),
    ).toBe('[1] a.pdf (Page 1):\nalpha\n\n---\n\n[2] b.md (Page iv):\nbeta');
  });

  test('missing filename → Unknown, missing page → N/A, missing text → ""', () => {
    expect(formatDocs([{}])).toBe('[1] Unknown (Page N/A):\n');
  });

  test('a page 0 renders as 0 (not N/A), as PDF pages are 0-based', () => {
    expect(formatDocs([{ filename: 'a.pdf', page_number: 0, text: 't' }])).toBe('[1] a.pdf (Page 0):\nt');
  });
});
