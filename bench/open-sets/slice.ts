import type { GoldenQuestion } from '../../core/eval/golden-set';
import { type Document, type UnitQuestion, isHeldOut, writeOne } from './common';
import { DEBIAN_FAQ_SET, type BuiltSet } from './debian-faq';
import { DJANGO_SET } from './django-notes';

/*
 * The committed slice of the open sets (test/fixtures/golden/open-slice, guarded by test/e2e/eval-open-slice.test.ts):
 * a few units of each set, calibration side only, their documents cut to short excerpts (at a paragraph break) so
 * that the slice ingests and runs in seconds. Both sources allow copies with attribution (README below).
 */

/** Debian FAQ entries: answerable ones (documents kept) and cut-out ones (questions only). */
const DEBIAN_UNITS = ['appdefaults', 'gnu', 'java', 'pkgprogs', 's3.1.7', 'qmail', 'flash', 'testing'];
/** CVEs (and their notes) of the Django set, answerable and unanswerable; plus one note without a CVE section. */
const DJANGO_UNITS = ['CVE-2025-32873', 'CVE-2017-12794', 'CVE-2018-14574'];
const DJANGO_EXTRA_DOCS = ['releases/5.2.3.txt'];
const EXCERPT_CHARS = 1600;

/** The text up to the last paragraph break within `max` characters. */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n\n', max);
  return `${text.slice(0, cut > 0 ? cut : max).trimEnd()}\n`;
}

function pick(set: string, built: BuiltSet, units: readonly string[], extraDocs: readonly string[] = []): { documents: Document[]; questions: UnitQuestion[] } {
  const questions = built.questions.filter((q) => units.includes(q.unit) && !isHeldOut(set, q.unit));
  const ids = new Set([...questions.flatMap((q) => q.gold_doc_ids), ...extraDocs]);
  const documents = built.documents.filter((d) => ids.has(d.id)).map((d) => ({ id: d.id, text: excerpt(d.text, EXCERPT_CHARS) }));
  return { documents, questions };
}

const README = `# open-slice: a committed slice of the open evaluation sets (issue 26)

Built by \`npx tsx bench/build-open-sets.ts --slice test/fixtures/golden/open-slice\` from the sets of
docs/EVALUATION.md (calibration units only); guarded by test/e2e/eval-open-slice.test.ts. Excerpts only.

- \`en/\`, \`zh-cn/\`: excerpts of "The Debian GNU/Linux FAQ" 11.1 (Debian packages debian-faq and
  debian-faq-zh-cn), copyright 1996-2022 Software in the Public Interest. Permission is granted to make and distribute
  verbatim copies of this document provided the copyright notice and this permission notice are preserved on all
  copies; modified versions and translations under the same conditions (usr/share/doc/debian-faq/copyright).
- \`releases/\`: excerpts of the Django 5.2.19 release notes (docs/releases/ of the django sdist), copyright (c) Django
  Software Foundation and individual contributors, BSD 3-Clause licence: redistribution in source form must retain
  the copyright notice, this list of conditions (redistributions keep this notice; neither the name of Django nor
  its contributors may be used to endorse derived products without permission) and the disclaimer: THE SOFTWARE IS
  PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES ARE DISCLAIMED.
`;

export function writeSlice(dir: string, sets: Record<string, BuiltSet>): void {
  const parts = [pick(DEBIAN_FAQ_SET, sets[DEBIAN_FAQ_SET]!, DEBIAN_UNITS), pick(DJANGO_SET, sets[DJANGO_SET]!, DJANGO_UNITS, DJANGO_EXTRA_DOCS)];
  const documents = parts.flatMap((p) => p.documents).sort((a, b) => (a.id < b.id ? -1 : 1));
  const questions: GoldenQuestion[] = parts
    .flatMap((p) => p.questions)
    .map(({ unit: _unit, ...q }) => q)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  writeOne(dir, documents, questions, README);
  console.log(`${dir}: ${documents.length} documents, ${questions.length} questions (${questions.filter((q) => q.answerable).length} answerable)`);
}
