/**
 * The pure parts of the open evaluation sets' builder (bench/open-sets/, issue 26): the held-out split by unit hash,
 * the honesty check of unanswerable units, the HTML and reST readers. No services, no sources needed.
 */
import { haystackOf, htmlToText, isCutOut, isHeldOut, leaks, longSentences } from '../../../bench/open-sets/common';
import { headings } from '../../../bench/open-sets/django-notes';
import { excerpt } from '../../../bench/open-sets/slice';

describe('held-out split (docs/design/evaluation-sets-plan.md §3)', () => {
  test('a unit falls on one side whatever else is in the set, about 30 % held out', () => {
    const units = Array.from({ length: 1000 }, (_, i) => `unit-${i}`);
    const held = units.filter((u) => isHeldOut('debian-faq', u));
    expect(held.length).toBeGreaterThan(250);
    expect(held.length).toBeLessThan(350);
    // Pinned: the split must never move (sha256 of "ragtime-open-sets-v1:<set>:<unit>"); values computed once.
    expect(['pkgprogs', 'java', 'testing', 'CVE-2025-48432'].map((u) => [isHeldOut('debian-faq', u), isCutOut('debian-faq', u)])).toMatchInlineSnapshot(`
[
  [
    false,
    false,
  ],
  [
    false,
    false,
  ],
  [
    false,
    true,
  ],
  [
    true,
    false,
  ],
]
`);
    expect(isHeldOut('django-notes', 'CVE-2025-48432')).toBe(true);
  });
});

describe('honest unanswerables: a cut-out unit must be absent from every document', () => {
  const documents = [{ id: 'a.md', text: 'The stable distribution holds the released packages.\n\nSee the FAQ for more.' }];
  test('a sentence of the unit found in a document is a leak; heading underlines and short words are not', () => {
    expect(leaks('The stable distribution holds the released packages. Nothing else here is shared at all.', [], haystackOf(documents))).toHaveLength(1);
    expect(leaks('Something entirely different that nobody wrote down.\n==========================', [], haystackOf(documents))).toEqual([]);
  });
  test('a marker (title, CVE id) found anywhere is a leak', () => {
    expect(leaks('', ['See the FAQ for more'], haystackOf(documents))).toEqual(['seethefaqformore']);
  });
  test('wrapped lines of a paragraph are one sentence', () => {
    expect(longSentences('This sentence is wrapped\nover two lines of text.')).toEqual(['thissentenceiswrappedovertwolinesoftext.']);
  });
});

describe('readers', () => {
  test('htmlToText: paragraphs, list items, pre blocks (their line breaks kept, lines trimmed) and entities', () => {
    expect(htmlToText('<p>One &amp; two\n  wrapped</p><ul><li>item</li></ul><pre>a\n  b</pre>')).toBe('One & two wrapped\n\n- item\n\na\nb');
  });
  test('reST headings: underlined and overlined titles, sections end at the next heading of their level or above', () => {
    const lines = ['=====', 'Title', '=====', '', 'Q one?', '------', 'text', 'Sub', '~~~', 'more', 'Q two?', '------', 'end'];
    expect(headings(lines).map((h) => [h.title, h.line, h.end])).toEqual([['Title', 0, 13], ['Q one?', 4, 10], ['Sub', 7, 10], ['Q two?', 10, 13]]);
  });
  test('excerpt cuts at the last paragraph break within the limit', () => {
    expect(excerpt('aaaa\n\nbbbb\n\ncccc', 12)).toBe('aaaa\n\nbbbb\n');
  });
});
