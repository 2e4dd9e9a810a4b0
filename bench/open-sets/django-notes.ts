import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EVAL_SOURCES, type Document, type UnitQuestion, haystackOf, isCutOut, leaks } from './common';
import type { BuiltSet } from './debian-faq';

/*
 * Set B, `django-notes` (docs/design/evaluation-sets-plan.md §5): the release notes of the Django 4.2, 5.0, 5.1 and
 * 5.2 series and the FAQ pages from the django 5.2.19 sdist. Dated, long pages with natural near duplicates (one
 * security section repeated in each supported branch's note).
 *
 * Questions, deterministic:
 * - CVE questions are TEMPLATED (not authored): for each `CVE-YYYY-NNNN: <title>` section, "Which Django releases
 *   fixed the <title>?" and "Which Django releases fix CVE-YYYY-NNNN?". Answerable when a note of the series holds
 *   the section; gold documents: every note holding it; gold answers: those notes' release numbers. Unanswerable:
 *   CVEs of older notes (3.x, 4.0, 4.1, …) whose id, title and sentences occur in no document of the set.
 * - FAQ questions are the FAQ's own question headings; unanswerable ones (hash bit) are cut out of their page, the
 *   heading and its subsections included.
 */

export const DJANGO_SET = 'django-notes';
const DOCS_DIR = path.join(EVAL_SOURCES, 'django', 'django-5.2.19', 'docs');
const SERIES = /^(4\.2|5\.0|5\.1|5\.2)(\.\d+)?\.txt$/;
const ADORNMENT = /^([=\-~^"'*+#`:.])\1{2,}\s*$/;

type Heading = { line: number; title: string; style: string; end: number };

/** reST section headings: a title line with an underline (and maybe an overline) of one repeated character. */
export function headings(lines: readonly string[]): Heading[] {
  const found: Heading[] = [];
  for (let i = 0; i + 1 < lines.length; i += 1) {
    const title = lines[i]!.trim();
    const under = lines[i + 1]!;
    if (title === '' || ADORNMENT.test(lines[i]!) || !ADORNMENT.test(under) || under.trim().length < title.length) continue;
    const over = i > 0 && ADORNMENT.test(lines[i - 1]!) && lines[i - 1]!.trim()[0] === under.trim()[0];
    found.push({ line: over ? i - 1 : i, title, style: `${over ? 'o' : ''}${under.trim()[0]}`, end: 0 });
  }
  // A section ends at the next heading of the same or a higher level (levels in order of first appearance).
  const levels: string[] = [];
  for (const h of found) if (!levels.includes(h.style)) levels.push(h.style);
  found.forEach((h, i) => {
    const next = found.slice(i + 1).find((o) => levels.indexOf(o.style) <= levels.indexOf(h.style));
    h.end = next ? next.line : lines.length;
  });
  return found;
}

/** A title as a question would say it: reST roles and literals unwrapped. */
export const plain = (title: string) => title.replace(/:[a-z:]+:`~?\.?([^`<]+?)(?:\s*<[^>]+>)?`/g, '$1').replace(/``([^`]+)``/g, '$1').replace(/\s+/g, ' ').trim();
export const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);

type Cve = { id: string; title: string; text: string; notes: string[] };

function cvesOf(file: string, text: string, into: Map<string, Cve>): void {
  const lines = text.split('\n');
  for (const h of headings(lines)) {
    const match = /^(CVE-\d{4}-\d+):\s*(.+)$/.exec(h.title);
    if (!match) continue;
    const cve = into.get(match[1]!) ?? { id: match[1]!, title: plain(match[2]!), text: lines.slice(h.line, h.end).join('\n'), notes: [] };
    cve.notes.push(file);
    into.set(cve.id, cve);
  }
}

const release = (file: string) => path.basename(file, '.txt');

export function buildDjangoNotes(): BuiltSet {
  if (!existsSync(DOCS_DIR)) throw new Error(`${DOCS_DIR} is missing: run bash bench/fetch-eval-sources.sh first`);
  const releaseFiles = readdirSync(path.join(DOCS_DIR, 'releases')).filter((f) => f.endsWith('.txt') && f !== 'index.txt' && f !== 'security.txt').sort();
  const inSeries = new Map<string, Cve>();
  const older = new Map<string, Cve>();
  const documents: Document[] = [];
  for (const file of releaseFiles) {
    const text = readFileSync(path.join(DOCS_DIR, 'releases', file), 'utf8');
    if (SERIES.test(file)) {
      documents.push({ id: `releases/${file}`, text });
      cvesOf(`releases/${file}`, text, inSeries);
    } else cvesOf(`releases/${file}`, text, older);
  }
  // FAQ pages, with the unanswerable question sections cut out.
  const faqQuestions: Array<{ unit: string; page: string; title: string; text: string }> = [];
  for (const file of readdirSync(path.join(DOCS_DIR, 'faq')).filter((f) => f.endsWith('.txt') && f !== 'index.txt').sort()) {
    const lines = readFileSync(path.join(DOCS_DIR, 'faq', file), 'utf8').split('\n');
    const cut = new Set<number>();
    for (const h of headings(lines).filter((x) => /\?\s*$/.test(x.title))) {
      const unit = `faq/${file}#${h.title}`;
      faqQuestions.push({ unit, page: `faq/${file}`, title: plain(h.title), text: lines.slice(h.line, h.end).join('\n') });
      if (isCutOut(DJANGO_SET, unit)) for (let i = h.line; i < h.end; i += 1) cut.add(i);
    }
    documents.push({ id: `faq/${file}`, text: lines.filter((_, i) => !cut.has(i)).join('\n') });
  }
  const haystack = haystackOf(documents);
  const questions: UnitQuestion[] = [];
  const notes: string[] = [];
  for (const cve of inSeries.values()) {
    const gold = { unit: cve.id, answerable: true, gold_doc_ids: [...cve.notes].sort(), gold_answers: cve.notes.map(release).sort() };
    questions.push({ ...gold, id: `django-${cve.id}-title`, question: `Which Django releases fixed the ${lowerFirst(cve.title)}?` });
    questions.push({ ...gold, id: `django-${cve.id}-id`, question: `Which Django releases fix ${cve.id}?` });
  }
  let droppedOld = 0;
  for (const cve of older.values()) {
    if (inSeries.has(cve.id)) continue;
    const leaked = leaks(cve.text, [cve.id, cve.title], haystack);
    if (leaked.length > 0) {
      droppedOld += 1;
      notes.push(`dropped unanswerable ${cve.id} ("${cve.title}"): "${leaked[0]!.slice(0, 80)}" occurs in a document of the set`);
      continue;
    }
    const base = { unit: cve.id, answerable: false, gold_doc_ids: [], gold_answers: [] };
    questions.push({ ...base, id: `django-${cve.id}-title`, question: `Which Django releases fixed the ${lowerFirst(cve.title)}?` });
    questions.push({ ...base, id: `django-${cve.id}-id`, question: `Which Django releases fix ${cve.id}?` });
  }
  let faqCut = 0;
  for (const q of faqQuestions) {
    const slug = q.unit.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase().replace(/^-|-$/g, '').slice(0, 90);
    const page = documents.find((d) => d.id === q.page)!;
    if (page.text.includes(q.text.split('\n')[0]! + '\n' + q.text.split('\n')[1]!)) {
      questions.push({ unit: q.unit, id: `django-${slug}`, question: q.title, answerable: true, gold_doc_ids: [q.page], gold_answers: [] });
      continue;
    }
    faqCut += 1;
    const leaked = leaks(q.text.split('\n').slice(2).join('\n'), [q.title], haystack);
    if (leaked.length > 0) notes.push(`dropped unanswerable FAQ entry "${q.title}": "${leaked[0]!.slice(0, 80)}" occurs in a document of the set`);
    else questions.push({ unit: q.unit, id: `django-${slug}`, question: q.title, answerable: false, gold_doc_ids: [], gold_answers: [] });
  }
  const differing = [...inSeries.values()].filter((cve) => cve.notes.length > 1).length;
  notes.unshift(
    `${documents.length} documents; ${inSeries.size} CVEs in the 4.2–5.2 notes (${differing} in more than one note), ${older.size - droppedOld - [...older.keys()].filter((id) => inSeries.has(id)).length} older CVEs absent from the set (${droppedOld} dropped: text present); ${faqQuestions.length} FAQ questions, ${faqCut} cut out`,
  );
  return { documents, questions, notes };
}

export const DJANGO_README = `# django-notes (open evaluation set B; built by bench/build-open-sets.ts — do not commit)

Source: the django 5.2.19 sdist from PyPI (sha256 ad03d8abc51dbff95ebf34b27123cf0c26a3b62db7ba0cd520783686362533d1),
fetched and extracted by bench/fetch-eval-sources.sh; docs/releases/ (4.2, 5.0, 5.1 and 5.2 series) and docs/faq/.
Copyright (c) Django Software Foundation and individual contributors; BSD 3-Clause licence (LICENSE in the sdist).

CVE questions are generated from the notes' section headings by two fixed templates ("Which Django releases fixed
the <title>?", "Which Django releases fix <CVE id>?"); gold answers are the release numbers of the notes holding the
section. Unanswerable CVE questions name CVEs of older notes (not in the set) whose id, title and sentences occur in
no document. Templated questions share words with their heading: the set measures routing among near duplicates and
against close negatives, not paraphrase. FAQ questions are the FAQ's own headings; unanswerable ones are cut out.
Split: held out when sha256("ragtime-open-sets-v1:django-notes:" + unit)[0..8] % 10 < 3 (unit: CVE id or FAQ heading).
`;
