/**
 * The pure parts of the open evaluation sets' builder (bench/open-sets/, issue 26): the held-out split by unit hash,
 * the honesty check of unanswerable units, the HTML and reST readers. No services, no sources needed.
 */
import { haystackOf, htmlToText, isCutOut, isHeldOut, leaks, longSentences } from '../../../bench/open-sets/common';
import { headings } from '../../../bench/open-sets/django-notes';
import { archiveEntries, debianReports, noteReports, pythonSupport } from '../../../bench/open-sets/security-reports';
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
  test('a sentence the set shares across many units (a severity notice) is not a leak when named boilerplate', () => {
    const notice = 'This issue has severity "low" according to the Django security policy.';
    const haystack = haystackOf([{ id: 'b.txt', text: `Another fix entirely.\n\n${notice}` }]);
    expect(leaks(`A fix nobody else describes in any way.\n\n${notice}`, [], haystack)).toHaveLength(1);
    expect(leaks(`A fix nobody else describes in any way.\n\n${notice}`, [], haystack, new Set(longSentences(notice)))).toEqual([]);
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

describe('security-reports readers (issue 32 §4): three writers of one fix', () => {
  test('the archive: one entry per CVE with its description as title; the link every fix of that day shares is not its own text', () => {
    const text = ['Issues', '======', '', 'July 9, 2024 - :cve:`2024-38875`', '---------------------------------', '', 'Potential denial-of-service in', '``django.utils.html.urlize()``.', '`Full description', '<https://www.djangoproject.com/weblog/2024/jul/09/security-releases/>`__', '', '* Django 5.0 :commit:`(patch) <7285644640f0>`', '', 'February 19, 2013 - No CVE', '--------------------------', '', 'Additional hardening.', ''].join('\n');
    const entries = archiveEntries(text);
    expect([...entries.keys()]).toEqual(['CVE-2024-38875']);
    const entry = entries.get('CVE-2024-38875')!;
    expect([entry.title, entry.year]).toEqual(['Potential denial-of-service in ``django.utils.html.urlize()``', 2024]);
    expect(entry.text.startsWith('Django: Archive of security issues\n\nJuly 9, 2024')).toBe(true);
    expect(entry.own).not.toContain('weblog');
  });
  test('a release note: each CVE section comes with the note\'s title, date and opening paragraph', () => {
    const note = ['===========================', 'Django 4.2.14 release notes', '===========================', '', '*July 9, 2024*', '', 'Django 4.2.14 fixes two security issues in 4.2.13.', '', 'CVE-2024-38875: Potential denial-of-service in ``urlize()``', '===========================================================', '', 'The urlize filter was slow.', '', 'Bugfixes', '========', '', '* Fixed a crash.', ''].join('\n');
    const [report, ...rest] = noteReports('4.2.14.txt', note);
    expect(rest).toEqual([]);
    expect([report!.cve, report!.title, report!.report.id]).toEqual(['CVE-2024-38875', 'Potential denial-of-service in ``urlize()``', 'releases/4.2.14/CVE-2024-38875.txt']);
    expect(report!.report.text).toContain('*July 9, 2024*');
    expect(report!.report.text).toContain('The urlize filter was slow.');
    expect(report!.report.text).not.toContain('Fixed a crash');
  });
  test('Debian\'s changelog: an entry naming one CVE is a report with its upload\'s header and trailer; one naming several is left out', () => {
    const changelog = ['python-django (3:3.2.25-0+deb12u3) bookworm-security; urgency=high', '', '  * CVE-2024-38875: Potential denial-of-service in', '    django.utils.html.urlize().', '  * New upstream security release to address CVE-2020-24583, CVE-2020-24584.', '', ' -- Chris Lamb <lamby@debian.org>  Tue, 09 Jul 2024 10:00:00 -0700', ''].join('\n');
    const { reports, skipped } = debianReports(changelog);
    expect(skipped).toBe(1);
    const [report] = reports.get('CVE-2024-38875')!;
    expect(report!.id).toBe('debian/3.2.25-0+deb12u3/CVE-2024-38875.txt');
    expect(report!.text.split('\n')[0]).toBe('python-django (3:3.2.25-0+deb12u3) bookworm-security; urgency=high');
    expect(report!.text).toContain('django.utils.html.urlize().');
    expect(report!.text.trimEnd().endsWith('-0700')).toBe(true);
    expect(report!.own).not.toContain('Chris Lamb');
  });
  test('Python compatibility: the versions as the note states them, and as a list', () => {
    const note = ['Python compatibility', '====================', '', 'Django 4.1 supports Python 3.8, 3.9, 3.10, and 3.11 (as of 4.1.3). We', '**highly recommend** the latest release.', '', 'Next', '====', ''].join('\n');
    expect(pythonSupport(note)).toMatchObject({ stated: '3.8, 3.9, 3.10, and 3.11', versions: ['3.8', '3.9', '3.10', '3.11'] });
    expect(pythonSupport('No such section\n===============\n')).toBeNull();
  });
});
