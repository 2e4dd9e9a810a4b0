import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { EVAL_SOURCES, type Document, type UnitQuestion, haystackOf, isCutOut, leaks, longSentences } from './common';
import type { BuiltSet } from './debian-faq';
import { DJANGO_SET, headings, lowerFirst, plain } from './django-notes';

/*
 * Set C, `security-reports` (issue 32 §4): several sources for one fact. Each Django security fix of 2022–2026 is
 * reported by up to three independent writers, all served by the registries:
 * - the Django release notes of every branch that shipped the fix (`releases/<release>/<CVE>.txt`: the note's title,
 *   date and opening paragraph, then the CVE's section; 1–3 near-identical copies, one per branch), django sdist;
 * - Django's archive of security issues (`archive/<CVE>.txt`: date, one-line description, affected branches),
 *   docs/releases/security.txt of the same sdist, in other words than the notes;
 * - Debian's changelog of its python3-django package (`debian/<version>/<CVE>.txt`: the upload's header line, the
 *   entry of this CVE, the trailer), written by Debian's LTS team for the fixes it backported to 3.2.
 * So several documents state the same fact in their own words: they corroborate each other, and a grader that
 * calls that ambiguity and asks back (scope_select) is wrong on every such question.
 *
 * Questions, templated (not authored): "What is CVE-YYYY-NNNN?" and "Which CVE identifier was assigned to the
 * <title>?". Gold documents: every report of the CVE; gold answers: the code names of the title ("``urlize()``") and
 * the CVE number. Unanswerable: CVEs cut out (hash bit) of every source, checked absent mechanically.
 *
 * Genuine disagreement: each feature release's note states which Python versions it supports, and they differ
 * (3.2: 3.6–3.10 … 5.2: 3.10–3.14). Questions naming the release are answerable from its section; questions that
 * do not name one ("Which Python versions does Django support?", "Does Django support Python 3.9?") have several
 * different answers and expect the grade to ask which (expected_route scope_select: the candidates are documents
 * the person picks from; spec §4.5.3 step 3). Chosen mechanically: the list question, and a yes/no question for
 * every Python version any section names, kept only when at least two of the seven releases answer it differently
 * (the builder compares the sections' version lists; 3.10 is supported by all seven, so it is not asked).
 *
 * The split follows django-notes' (units are CVE ids there too), so a CVE held out there is held out here.
 */

export const SECURITY_REPORTS_SET = 'security-reports';
const DOCS_DIR = path.join(EVAL_SOURCES, 'django', 'django-5.2.19', 'docs', 'releases');
const DEBIAN_CHANGELOG = path.join(EVAL_SOURCES, 'python3-django', 'usr', 'share', 'doc', 'python3-django', 'changelog.Debian.gz');
const FIRST_YEAR = 2022;
const BOILERPLATE_UNITS = 3;
const FEATURE_RELEASES = ['3.2', '4.0', '4.1', '4.2', '5.0', '5.1', '5.2'];
const CVE = /CVE-\d{4}-\d+/g;

type Report = { id: string; text: string };
/** `body`: the unit's own text in every source (no shared headers), checked absent when the unit is cut out. */
type Unit = { cve: string; title: string; reports: Report[]; body: string };

/** The code names of a title (``…`` literals): the short fact an answer about the CVE should hold. */
const literals = (title: string) => [...title.matchAll(/``([^`]+)``/g)].map((m) => m[1]!);

/** The archive's entries: "Month D, YYYY - :cve:`YYYY-NNNN`", underlined, up to the next entry. */
export function archiveEntries(text: string): Map<string, { title: string; text: string; own: string; year: number }> {
  const lines = text.split('\n');
  const out = new Map<string, { title: string; text: string; own: string; year: number }>();
  const starts = lines.flatMap((line, i) => (/^[A-Z][a-z]+ \d+, \d{4} - /.test(line) && /^-{3,}$/.test(lines[i + 1] ?? '') ? [i] : []));
  starts.forEach((start, k) => {
    const m = /^[A-Z][a-z]+ \d+, (\d{4}) - :cve:`(\d{4}-\d+)`\s*$/.exec(lines[start]!);
    if (!m) return;
    const end = k + 1 < starts.length ? starts[k + 1]! : lines.length;
    const body = lines.slice(start, end).join('\n').trimEnd();
    const description = lines.slice(start + 2, end).join('\n').split(/\n\s*\n/).map((p) => p.trim()).find((p) => p.length > 0) ?? '';
    const title = description.split(/`Full description/)[0]!.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
    // What is this fix's own (for the absence check): the entry without its link to the day's announcement, which
    // every fix disclosed that day shares.
    const own = body.replace(/`Full description\s*<[^>]*>`__/g, '');
    out.set(`CVE-${m[2]}`, { title, text: `Django: Archive of security issues\n\n${body}\n`, own, year: Number(m[1]) });
  });
  return out;
}

/** One note's excerpt per CVE section: the note's title, date and opening paragraph, then the section. */
export function noteReports(file: string, text: string): Array<{ cve: string; title: string; section: string; report: Report }> {
  const lines = text.split('\n');
  const hs = headings(lines);
  const first = hs.find((h) => h.title.endsWith('release notes'));
  const firstSection = hs.find((h) => h !== first);
  if (!first || !firstSection) return [];
  const head = lines.slice(first.line, firstSection.line).join('\n').trimEnd();
  const release = path.basename(file, '.txt');
  return hs.flatMap((h) => {
    const m = /^(CVE-\d{4}-\d+):\s*(.+)$/.exec(h.title);
    if (!m) return [];
    const section = lines.slice(h.line, h.end).join('\n').trimEnd();
    return [{ cve: m[1]!, title: m[2]!, section, report: { id: `releases/${release}/${m[1]}.txt`, text: `${head}\n\n${section}\n` } }];
  });
}

/** Debian's changelog entries that name exactly one CVE, with their upload's header and trailer. */
export function debianReports(changelog: string): { reports: Map<string, Array<Report & { own: string }>>; skipped: number } {
  const reports = new Map<string, Array<Report & { own: string }>>();
  let skipped = 0;
  for (const stanza of changelog.split(/\n(?=\S)/)) {
    const lines = stanza.trimEnd().split('\n');
    const header = lines[0]!;
    const version = /\(\d+:([^)]+)\)/.exec(header)?.[1];
    const trailer = lines.find((line) => line.startsWith(' -- '));
    if (!version || !trailer) continue;
    const bullets = lines.join('\n').split(/\n(?=  \* )/).filter((b) => b.startsWith('  * '));
    for (const bullet of bullets) {
      const ids = [...new Set(bullet.match(CVE) ?? [])];
      if (ids.length === 0) continue;
      if (ids.length > 1) {
        skipped += 1;
        continue;
      }
      const id = ids[0]!;
      const list = reports.get(id) ?? [];
      const own = bullet.split('\n').filter((l) => !l.startsWith(' -- ')).join('\n').trimEnd();
      list.push({ id: `debian/${version}/${id}.txt`, text: `${header}\n\n${own}\n\n${trailer}\n`, own });
      reports.set(id, list);
    }
  }
  return { reports, skipped };
}

/** "Django X.Y supports Python A, B, and C (as of …)": the versions, as written and as a list. */
export function pythonSupport(text: string): { section: string; stated: string; versions: string[] } | null {
  const lines = text.split('\n');
  const h = headings(lines).find((x) => x.title === 'Python compatibility');
  if (!h) return null;
  const section = lines.slice(h.line, h.end).join('\n').trimEnd();
  const m = /supports\s+Python\s+([\d.,\s]+(?:and\s+[\d.]+)?)/.exec(section.replace(/\s+/g, ' '));
  if (!m) return null;
  const stated = m[1]!.trim().replace(/[.,\s]+$/, '');
  return { section, stated, versions: stated.match(/\d+\.\d+/g) ?? [] };
}

export function buildSecurityReports(): BuiltSet {
  if (!existsSync(DOCS_DIR) || !existsSync(DEBIAN_CHANGELOG)) throw new Error(`${DOCS_DIR} or ${DEBIAN_CHANGELOG} is missing: run bash bench/fetch-eval-sources.sh first`);
  const archive = archiveEntries(readFileSync(path.join(DOCS_DIR, 'security.txt'), 'utf8'));
  const units = new Map<string, Unit>();
  for (const [cve, entry] of archive) {
    if (entry.year < FIRST_YEAR) continue;
    units.set(cve, { cve, title: entry.title, reports: [{ id: `archive/${cve}.txt`, text: entry.text }], body: entry.own });
  }
  const releaseFiles = readdirSync(DOCS_DIR).filter((f) => /^\d+\.\d+(\.\d+)?\.txt$/.test(f)).sort();
  for (const file of releaseFiles) {
    for (const { cve, title, section, report } of noteReports(file, readFileSync(path.join(DOCS_DIR, file), 'utf8'))) {
      const unit = units.get(cve);
      if (!unit) continue;
      unit.title = title; // the notes' heading, with its ``literals``, over the archive's description
      unit.reports.push(report);
      unit.body += `\n${section}`;
    }
  }
  const debian = debianReports(gunzipSync(readFileSync(DEBIAN_CHANGELOG)).toString('utf8'));
  for (const [cve, reports] of debian.reports) {
    const unit = units.get(cve);
    if (!unit) continue;
    unit.reports.push(...reports.map(({ id, text }) => ({ id, text })));
    unit.body += `\n${reports.map((r) => r.own).join('\n')}`;
  }

  // Python compatibility of each feature release: the slot on which the releases disagree.
  const compat = FEATURE_RELEASES.flatMap((release) => {
    const text = readFileSync(path.join(DOCS_DIR, `${release}.txt`), 'utf8');
    const support = pythonSupport(text);
    if (!support) return [];
    const lines = text.split('\n');
    const hs = headings(lines);
    const head = lines.slice(hs[0]!.line, hs[1]!.line).join('\n').trimEnd();
    return [{ release, ...support, document: { id: `releases/${release}/python-compatibility.txt`, text: `${head}\n\n${support.section}\n` } }];
  });

  const kept = [...units.values()].filter((u) => !isCutOut(SECURITY_REPORTS_SET, u.cve));
  const cut = [...units.values()].filter((u) => isCutOut(SECURITY_REPORTS_SET, u.cve));
  const documents: Document[] = [...kept.flatMap((u) => u.reports), ...compat.map((c) => c.document)];
  const haystack = haystackOf(documents);
  // Sentences in the own text of BOILERPLATE_UNITS or more fixes (the severity notice, "New upstream security
  // release:") say nothing about any one of them: they are not evidence that a cut-out fix leaked.
  const seen = new Map<string, number>();
  for (const u of units.values()) for (const sentence of new Set(longSentences(u.body))) seen.set(sentence, (seen.get(sentence) ?? 0) + 1);
  const boilerplate = new Set([...seen].filter(([, n]) => n >= BOILERPLATE_UNITS).map(([sentence]) => sentence));
  const questions: UnitQuestion[] = [];
  const notes: string[] = [];
  // A title several fixes share ("Potential denial-of-service vulnerability in django.utils.html.urlize()": three
  // CVEs) names no one fix: its title question has several answers, so it is not asked.
  const titleCount = new Map<string, number>();
  for (const u of units.values()) titleCount.set(plain(u.title).toLowerCase(), (titleCount.get(plain(u.title).toLowerCase()) ?? 0) + 1);
  const ask = (u: Unit, answerable: boolean) => {
    const gold = answerable ? [...u.reports.map((r) => r.id)].sort() : [];
    const base = { unit: u.cve, answerable, gold_doc_ids: gold };
    questions.push({ ...base, id: `secrep-${u.cve}-id`, question: `What is ${u.cve}?`, gold_answers: answerable ? literals(u.title) : [] });
    if (titleCount.get(plain(u.title).toLowerCase())! > 1) notes.push(`no title question for ${u.cve}: ${titleCount.get(plain(u.title).toLowerCase())} fixes share the title "${plain(u.title)}"`);
    else questions.push({ ...base, id: `secrep-${u.cve}-title`, question: `Which CVE identifier was assigned to the ${lowerFirst(plain(u.title))}?`, gold_answers: answerable ? [u.cve.slice(4)] : [] });
  };
  for (const u of kept) ask(u, true);
  for (const u of cut) {
    const leaked = leaks(u.body, [u.cve, u.cve.slice(4), u.title, plain(u.title)], haystack, boilerplate);
    if (leaked.length > 0) notes.push(`dropped unanswerable ${u.cve} ("${plain(u.title)}"): "${leaked[0]!.slice(0, 80)}" occurs in a document of the set`);
    else ask(u, false);
  }

  for (const c of compat) {
    questions.push({ unit: `python-${c.release}`, id: `secrep-python-${c.release}`, question: `Which Python versions does Django ${c.release} support?`, answerable: true, gold_doc_ids: [c.document.id], gold_answers: [c.stated] });
  }
  // Questions on the slot that leave the release open; kept only where the releases' answers differ.
  const supports = (v: string) => compat.map((c) => c.versions.includes(v));
  const differs = (answers: readonly unknown[]) => new Set(answers.map((a) => JSON.stringify(a))).size > 1;
  const allDocs = compat.map((c) => c.document.id).sort();
  // The list question, and a yes/no question for every Python version any section names (phrasings in turn).
  const phrasings = [(v: string) => `Does Django support Python ${v}?`, (v: string) => `Can I use Django with Python ${v}?`, (v: string) => `Is Python ${v} supported by Django?`];
  const named = [...new Set(compat.flatMap((c) => c.versions))].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
  const open: Array<[string, string, readonly unknown[]]> = [
    ['python-any-list', 'Which Python versions does Django support?', compat.map((c) => c.versions)],
    ...named.map((v, i): [string, string, readonly unknown[]] => [`python-any-${v}`, phrasings[i % phrasings.length]!(v), supports(v)]),
  ];
  for (const [unit, question, answers] of open) {
    if (!differs(answers)) {
      notes.push(`dropped "${question}": every release gives the same answer`);
      continue;
    }
    questions.push({ unit, id: `secrep-${unit}`, question, answerable: true, expected_route: 'scope_select', gold_doc_ids: allDocs, gold_answers: [] });
  }
  notes.push(`sentences not counted as a leak (in the own text of ${BOILERPLATE_UNITS} or more fixes): ${[...boilerplate].map((b) => `"${b.slice(0, 70)}"`).join(', ')}`);
  const perUnit = kept.map((u) => u.reports.length);
  notes.unshift(
    `${units.size} CVEs disclosed ${FIRST_YEAR}–2026 in Django's archive; ${kept.length} kept with ${perUnit.reduce((a, b) => a + b, 0)} reports (${perUnit.filter((n) => n >= 3).length} with 3 or more; ${kept.filter((u) => u.reports.some((r) => r.id.startsWith('debian/'))).length} with a Debian report), ${cut.length} cut out of every source; ${compat.length} Python-compatibility sections; ${debian.skipped} Debian entries naming several CVEs left out`,
  );
  return { documents, questions, notes };
}

/** Units are split as in django-notes (CVE ids there too): a CVE held out there is held out here. */
export const SECURITY_REPORTS_SPLIT = DJANGO_SET;

export const SECURITY_REPORTS_README = `# security-reports (open evaluation set C, issue 32; built by bench/build-open-sets.ts — do not commit)

Sources: the django 5.2.19 sdist from PyPI (sha256 ad03d8abc51dbff95ebf34b27123cf0c26a3b62db7ba0cd520783686362533d1;
docs/releases/*.txt and docs/releases/security.txt; BSD 3-Clause, copyright Django Software Foundation and
individual contributors) and Debian's python3-django 3:3.2.25-0+deb12u7 from bookworm-security (sha256
9ad8ed29d9026207970777e194f658c39b3a7a96a932967f043503fc25bdc319; usr/share/doc/python3-django/changelog.Debian.gz;
the changelog is part of the package's Debian packaging, distributed under the package's copyright file), fetched
and extracted by bench/fetch-eval-sources.sh.

Several sources for one fact: each CVE disclosed 2022–2026 is reported by every release note that shipped it
(releases/<release>/<CVE>.txt: the note's title, date and opening paragraph, then the section), by Django's archive
of security issues (archive/<CVE>.txt) and, where Debian backported it, by Debian's changelog
(debian/<version>/<CVE>.txt). Questions are templated: "What is <CVE>?" (gold answers: the title's code names) and
"Which CVE identifier was assigned to the <title>?" (gold answer: the CVE number); gold documents: every report.
Unanswerable: CVEs cut out of every source by the hash bit, checked absent (sentences, id, title) from every document.

Disagreement: the Python-compatibility sections of the 3.2–5.2 feature-release notes. "Which Python versions does
Django 5.0 support?" is answerable (gold answer: the versions as stated). Questions that do not name a release are
kept only when the releases' answers differ (checked by the builder) and expect scope_select.

Split: held out when sha256("ragtime-open-sets-v1:django-notes:" + unit)[0..8] % 10 < 3 — django-notes' rule, so a
CVE is on the same side in both sets. Unanswerable when sha256("ragtime-open-sets-v1:security-reports:" +
unit)[8..16] is odd.
`;
