import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EVAL_SOURCES, type Document, type UnitQuestion, haystackOf, htmlToText, isCutOut, leaks } from './common';

/*
 * Set A, `debian-faq` (docs/design/evaluation-sets-plan.md §4): the Debian FAQ 11.1 in English and Simplified
 * Chinese. A unit is a question entry (DocBook id, the same in both languages); a section whose English heading is
 * not a question is folded into the question entry above it. Documents: one per entry and language,
 * `en/<chapter>/<id>.md` and `zh-cn/<chapter>/<id>.md`, holding the chapter title and the answer without the
 * question heading. Questions: the entry's English and Chinese headings (written by the FAQ's authors and
 * translators). Unanswerable entries (hash bit) are cut out in both languages; their chapter neighbours stay.
 */

export const DEBIAN_FAQ_SET = 'debian-faq';
const FAQ_DIR = path.join(EVAL_SOURCES, 'debian-faq', 'usr', 'share', 'doc', 'debian', 'FAQ');
const SKIP_CHAPTERS = new Set(['index', 'faqinfo']);

type Section = { id: string; level: number; heading: string; html: string };
type Entry = { id: string; chapter: string; heading: string; body: string };

const HEADING = /<h([1-4]) class="title"><a id="([^"]+)"><\/a>([\s\S]*?)<\/h\1>/g;
const headingText = (html: string) => htmlToText(html).replace(/^\d+(\.\d+)*\.\s*/, '').replace(/\s+/g, ' ').trim();

function sections(html: string): Section[] {
  const found = [...html.matchAll(HEADING)];
  return found.map((match, i) => ({
    id: match[2]!,
    level: Number(match[1]),
    heading: headingText(match[3]!),
    html: html.slice(match.index! + match[0].length, i + 1 < found.length ? found[i + 1]!.index : html.length),
  }));
}

/** Question entries of one chapter in one language, the non-question subsections folded in (keyed by id). */
function entries(chapter: string, html: string, isQuestion: (id: string) => boolean): { title: string; entries: Map<string, Entry> } {
  const all = sections(html);
  const title = all.find((s) => s.level === 1)?.heading ?? chapter;
  const out = new Map<string, Entry>();
  const stack: Array<{ level: number; id: string }> = [];
  for (const section of all) {
    if (section.level === 1) continue;
    while (stack.length > 0 && stack.at(-1)!.level >= section.level) stack.pop();
    const text = htmlToText(section.html);
    if (isQuestion(section.id)) {
      out.set(section.id, { id: section.id, chapter, heading: section.heading, body: text });
      stack.push({ level: section.level, id: section.id });
    } else if (stack.length > 0) {
      const parent = out.get(stack.at(-1)!.id)!;
      parent.body = `${parent.body}\n\n${section.heading}\n\n${text}`.trim();
    }
  }
  return { title, entries: out };
}

export type BuiltSet = { documents: Document[]; questions: UnitQuestion[]; notes: string[] };

export function buildDebianFaq(): BuiltSet {
  if (!existsSync(FAQ_DIR)) throw new Error(`${FAQ_DIR} is missing: run bash bench/fetch-eval-sources.sh first`);
  const chapters = readdirSync(FAQ_DIR)
    .filter((name) => name.endsWith('.en.html'))
    .map((name) => name.slice(0, -'.en.html'.length))
    .filter((name) => !SKIP_CHAPTERS.has(name))
    .sort();
  const units: Array<{ en: Entry; zh: Entry | undefined; titles: { en: string; zh: string } }> = [];
  for (const chapter of chapters) {
    const enHtml = readFileSync(path.join(FAQ_DIR, `${chapter}.en.html`), 'utf8');
    const questionIds = new Set(sections(enHtml).filter((s) => s.level > 1 && /\?\s*$/.test(s.heading)).map((s) => s.id));
    const en = entries(chapter, enHtml, (id) => questionIds.has(id));
    const zhFile = path.join(FAQ_DIR, 'zh-cn', `${chapter}.zh-cn.html`);
    const zh = existsSync(zhFile) ? entries(chapter, readFileSync(zhFile, 'utf8'), (id) => questionIds.has(id)) : { title: chapter, entries: new Map<string, Entry>() };
    for (const entry of en.entries.values()) units.push({ en: entry, zh: zh.entries.get(entry.id), titles: { en: en.title, zh: zh.title } });
  }
  const docOf = (lang: 'en' | 'zh-cn', e: Entry, title: string): Document => ({ id: `${lang}/${e.chapter}/${e.id}.md`, text: `# ${title}\n\n${e.body}\n` });
  const kept = units.filter((u) => !isCutOut(DEBIAN_FAQ_SET, u.en.id));
  const cut = units.filter((u) => isCutOut(DEBIAN_FAQ_SET, u.en.id));
  const documents = kept.flatMap((u) => [docOf('en', u.en, u.titles.en), ...(u.zh ? [docOf('zh-cn', u.zh, u.titles.zh)] : [])]);
  const haystack = haystackOf(documents);
  const notes: string[] = [];
  const questions: UnitQuestion[] = [];
  const ask = (u: (typeof units)[number], answerable: boolean, gold: string[]) => {
    const base = { unit: u.en.id, answerable, gold_doc_ids: gold, gold_answers: [] };
    questions.push({ ...base, id: `debfaq-${u.en.id}-en`, question: u.en.heading });
    if (u.zh && u.zh.heading !== u.en.heading) questions.push({ ...base, id: `debfaq-${u.en.id}-zh`, question: u.zh.heading });
  };
  for (const u of kept) ask(u, true, [`en/${u.en.chapter}/${u.en.id}.md`, ...(u.zh ? [`zh-cn/${u.zh.chapter}/${u.zh.id}.md`] : [])]);
  for (const u of cut) {
    const leaked = leaks(`${u.en.body}\n${u.zh?.body ?? ''}`, [u.en.heading, u.zh?.heading ?? ''], haystack);
    if (leaked.length > 0) notes.push(`dropped unanswerable entry ${u.en.id} ("${u.en.heading}"): ${leaked.length} of its sentences or headings occur in other documents, e.g. "${leaked[0]!.slice(0, 80)}"`);
    else ask(u, false, []);
  }
  notes.unshift(`${units.length} question entries; ${kept.length} kept as documents (answerable), ${cut.length} cut out (unanswerable when absent everywhere)`);
  return { documents, questions, notes };
}

export const DEBIAN_FAQ_README = `# debian-faq (open evaluation set A; built by bench/build-open-sets.ts — do not commit)

Source: Debian packages debian-faq 11.1 (sha256 427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0) and
debian-faq-zh-cn 11.1 (sha256 3545356b1aa04d87e91dd15e8406210cf5b4f476662e597897bcb42234591758), fetched and
extracted by bench/fetch-eval-sources.sh. "The Debian GNU/Linux FAQ", copyright 1996-2022 Software in the Public
Interest; permission is granted to make and distribute verbatim or modified copies under the conditions of its
notice (usr/share/doc/debian-faq/copyright). Chinese translation by the Debian Chinese translation team.

Units: the FAQ's question entries (DocBook ids). Documents: one per entry and language, the answer without its
question heading, under the chapter title. Questions: the English and Chinese headings. Unanswerable: entries cut
out of both languages (hash bit), checked absent from every document; see the notes below for dropped entries.
Split: held out when sha256("ragtime-open-sets-v1:debian-faq:" + id)[0..8] % 10 < 3.
`;
