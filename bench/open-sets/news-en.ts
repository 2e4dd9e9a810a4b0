import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { normalizeForMatch } from '../../core/answer/verify-answer';
import { REPO_ROOT } from '../knowledge/common';
import { EVAL_SOURCES, type Document, type UnitQuestion } from './common';
import type { BuiltSet } from './debian-faq';
import { bm25Neighbours, englishTerms } from './news-neighbours';
import { presentProbes, rewriteEnglishNumbers, rotate } from './news-transform';

/*
 * Set `news-en` (issue 42 §7): English news facts told by several reports. Source: the 70 Reuters-21578 stories that
 * Debian's r-cran-tm ships (texts/crude: 20 oil stories, texts/acq: 50 acquisition stories, 26 Feb – 2 Mar 1987),
 * among them natural near duplicates (two "Saudi Arabia reiterates commitment" stories, two "Aspen study group"
 * stories, Kuwait's "no emergency OPEC talks" twice).
 *
 * Questions: written by hand, in a person's words, before any ragtime result was seen
 * (bench/open-sets/news-en-questions.jsonl; gold stories and short gold answers that the stories hold, checked here).
 * A unit is a story (or a group of stories of one event, named by its first story); every question of a unit falls
 * on one side of the split.
 *
 * Documents: `reuters/<topic>-<NEWID>.txt` (the story as Reuters wrote it: headline, dateline, body, sign-off) and,
 * for every answerable unit's story, two further reports of it: `<outlet>/<topic>-<NEWID>.txt` under another
 * outlet's heading, paragraphs rotated (+1 and −1), numbers written `exact` and `rounded` (news-transform.ts). Per
 * answerable question also its story's two nearest other stories by BM25 (holding none of its gold answers).
 * Unanswerable: stories cut out of the whole set (their siblings — other companies' price cuts, other stake
 * filings — stay), or facts no story states about entities the set holds; each with probes that must be absent
 * (checked mechanically; failures are dropped and listed), and 5 related stories (named, then BM25 neighbours).
 */

export const NEWS_EN_SET = 'news-en';
const TEXTS = path.join(EVAL_SOURCES, 'r-cran-tm', 'usr', 'lib', 'R', 'site-library', 'tm', 'texts');
const QUESTIONS_FILE = path.join(REPO_ROOT, 'bench', 'open-sets', 'news-en-questions.jsonl');
const OUTLETS: ReadonlyArray<readonly [string, string]> = [
  ['ap', 'Associated Press'],
  ['upi', 'United Press International'],
  ['dowjones', 'Dow Jones News Service'],
  ['knightridder', 'Knight-Ridder'],
];
const DISTRACTORS = 2;
const RELATED = 5;

const Answerable = z.strictObject({ id: z.string(), unit: z.string(), question: z.string(), stories: z.array(z.string()).min(1), answers: z.array(z.string()).min(1) });
const Unanswerable = z.strictObject({
  id: z.string(),
  unit: z.string(),
  question: z.string(),
  cut: z.array(z.string()).optional(),
  related: z.array(z.string()).optional(),
  absent: z.array(z.array(z.string()).min(1)).min(1),
});
const Authored = z.union([Answerable, Unanswerable]);
type Authored = z.infer<typeof Authored>;

type Story = { id: string; title: string; dateline: string; paragraphs: string[] };

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#(\d+);/g, (_m, c: string) => String.fromCodePoint(Number(c))).replace(/&amp;/g, '&');

/** One Reuters-21578 XML file of tm: headline, dateline, body paragraphs (indented lines start one), no sign-off. */
export function parseReuters(topic: string, xml: string): Story {
  const field = (name: string) => unescape(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1] ?? '').trim();
  const id = `${topic}-${/NEWID="(\d+)"/.exec(xml)![1]}`;
  const body = field('BODY').replace(/\s*\bREUTER\b\.*\s*$/i, '');
  const paragraphs = body
    .split(/\n(?=\s{2,}\S)/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '');
  return { id, title: field('TITLE').replace(/\s+/g, ' '), dateline: field('DATELINE').replace(/\s+/g, ' '), paragraphs };
}

const original = (s: Story) => `# ${s.title}\n\n${s.dateline} ${s.paragraphs.join('\n\n')}\n\nReuter\n`;

/** A further report of a story: another outlet's heading, paragraphs rotated, numbers in the given style. */
function report(s: Story, outlet: string, by: number, style: 'exact' | 'rounded'): string {
  // One paragraph: its sentences are rotated instead.
  const parts = s.paragraphs.length > 1 ? s.paragraphs : s.paragraphs.join(' ').split(/(?<=\.)\s+(?=[A-Z"])/);
  const body = rotate(parts, by).join(s.paragraphs.length > 1 ? '\n\n' : ' ');
  return rewriteEnglishNumbers(`# ${outlet}: ${s.title}\n\n${s.dateline} ${body}\n`, style);
}

const has = (text: string, answers: readonly string[]) => answers.some((a) => normalizeForMatch(text).includes(normalizeForMatch(a)));

export function buildNewsEn(): BuiltSet {
  if (!existsSync(TEXTS)) throw new Error(`${TEXTS} is missing: run bash bench/fetch-eval-sources.sh first`);
  const stories = ['crude', 'acq'].flatMap((topic) =>
    readdirSync(path.join(TEXTS, topic))
      .filter((f) => f.endsWith('.xml'))
      .sort()
      .map((f) => parseReuters(topic, readFileSync(path.join(TEXTS, topic, f), 'utf8'))),
  );
  const byId = new Map(stories.map((s, i) => [s.id, i]));
  const authored: Authored[] = readFileSync(QUESTIONS_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const parsed = Authored.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${QUESTIONS_FILE} line ${i + 1}: ${z.prettifyError(parsed.error)}`);
      return parsed.data;
    });
  const named = (id: string) => {
    const i = byId.get(id);
    if (i === undefined) throw new Error(`${QUESTIONS_FILE}: no story ${id} in ${TEXTS}`);
    return i;
  };
  const cut = new Set(authored.flatMap((q) => ('cut' in q ? (q.cut ?? []) : [])).map(named));
  const neighbours = bm25Neighbours(
    stories.map((s) => `${s.title}\n${s.paragraphs.join('\n')}`),
    englishTerms,
  );
  const notes: string[] = [];
  const answerable = authored.filter((q): q is z.infer<typeof Answerable> => 'answers' in q);
  const unanswerable = authored.filter((q): q is z.infer<typeof Unanswerable> => !('answers' in q));

  // The reports of every answerable unit's story (the unit names its story).
  const reports = new Map<string, Document[]>();
  for (const unit of [...new Set(answerable.map((q) => q.unit))].sort()) {
    const s = stories[named(unit)]!;
    const k = parseInt(createHash('sha256').update(`ragtime-open-sets-v1:outlets:${NEWS_EN_SET}:${unit}`).digest('hex').slice(0, 8), 16) % OUTLETS.length;
    const [a, b] = [OUTLETS[k]!, OUTLETS[(k + 1) % OUTLETS.length]!];
    reports.set(s.id, [
      { id: `reuters/${s.id}.txt`, text: original(s) },
      { id: `${a[0]}/${s.id}.txt`, text: report(s, a[1], 1, 'exact') },
      { id: `${b[0]}/${s.id}.txt`, text: report(s, b[1], -1, 'rounded') },
    ]);
  }
  const docsOf = (id: string): Document[] => reports.get(id) ?? [{ id: `reuters/${id}.txt`, text: original(stories[named(id)]!) }];

  const contributed = new Map<string, Document[]>(); // question id → the documents it brings
  const questions: UnitQuestion[] = [];
  let fullForms = 0;
  for (const q of answerable) {
    const gold = q.stories.flatMap(docsOf);
    for (const id of q.stories) {
      if (cut.has(named(id))) throw new Error(`${q.id}: gold story ${id} is cut out by an unanswerable question`);
      if (!has(original(stories[named(id)]!), q.answers)) throw new Error(`${q.id}: story ${id} holds none of ${JSON.stringify(q.answers)}`);
    }
    const exact = q.answers.map((a) => rewriteEnglishNumbers(a, 'exact'));
    const forms = [...new Set([...q.answers, ...exact])];
    if (gold.every((d) => has(d.text, [...forms, ...q.answers.map((a) => rewriteEnglishNumbers(a, 'rounded'))]))) fullForms += 1;
    const goldIdx = new Set(q.stories.map(named));
    const others = neighbours(named(q.unit), (j) => cut.has(j) || goldIdx.has(j) || has(original(stories[j]!), forms)).slice(0, DISTRACTORS);
    contributed.set(q.id, [...gold, ...others.map((j) => docsOf(stories[j]!.id)[0]!)]);
    questions.push({ unit: q.unit, id: q.id, question: q.question, answerable: true, gold_doc_ids: gold.map((d) => d.id).sort(), gold_answers: forms });
  }
  for (const q of unanswerable) {
    const anchors = [...(q.cut ?? []), ...(q.related ?? [])].map(named);
    const related = (q.related ?? []).map(named);
    for (const anchor of anchors) {
      for (const j of neighbours(anchor, (i) => cut.has(i) || related.includes(i))) {
        if (related.length >= RELATED) break;
        related.push(j);
      }
    }
    contributed.set(q.id, related.slice(0, RELATED).map((j) => docsOf(stories[j]!.id)[0]!));
  }
  // Honesty: the probes of every unanswerable question (and their rewritten forms) are absent from the final set.
  const all = () => dedupe([...contributed.values()].flat());
  for (const q of unanswerable) {
    const probes = q.absent.flatMap((probe) => (probe.length === 1 ? [...new Set([probe[0]!, rewriteEnglishNumbers(probe[0]!, 'exact'), rewriteEnglishNumbers(probe[0]!, 'rounded')])].map((p) => [p]) : [probe]));
    const found = presentProbes(probes, all());
    if (found.length > 0) {
      notes.push(`dropped unanswerable ${q.id}: "${found[0]}" occurs in a document of the set`);
      contributed.delete(q.id);
      continue;
    }
    questions.push({ unit: q.unit, id: q.id, question: q.question, answerable: false, gold_doc_ids: [], gold_answers: [] });
  }
  const documents = all();
  notes.unshift(
    `${stories.length} Reuters stories (r-cran-tm texts/crude and texts/acq); ${cut.size} cut out of the set; ${reports.size} answerable stories told three times; ${documents.length} documents`,
    `${answerable.length} answerable questions (${fullForms} whose every gold document states a gold answer in some form: as written, exact or rounded), ${questions.length - answerable.length} unanswerable kept of ${unanswerable.length}`,
  );
  return { documents, questions, notes };
}

function dedupe(documents: Document[]): Document[] {
  const seen = new Map<string, Document>();
  for (const d of documents) seen.set(d.id, d);
  return [...seen.values()];
}

export const NEWS_EN_README = `# news-en (open evaluation set, issue 42 §7; built by bench/build-open-sets.ts — do not commit)

Source: Reuters-21578 (Distribution 1.0; David D. Lewis; "for research purposes"), the 70 stories that Debian's
r-cran-tm 0.7-11-1 ships as usr/lib/R/site-library/tm/texts/{crude,acq}/*.xml (apt-get download r-cran-tm=0.7-11-1;
sha256 483fa4e8c8fec74a36875470932b71c21ed2209bbab504f50844aca2d24cb51b; package GPL-3).

Questions: written by hand in a person's words (bench/open-sets/news-en-questions.jsonl), with gold stories and short
gold answers that the stories hold; written before any ragtime result was seen.

Documents: reuters/<topic>-<NEWID>.txt is the story as written. For each answerable unit's story two further reports
of the same facts, made mechanically (bench/open-sets/news-transform.ts): <outlet>/<topic>-<NEWID>.txt under another
outlet's heading (the outlet names are a label, not a source), paragraphs rotated by +1 (report 2) and −1 (report 3),
numbers written exact (1.50 dlrs → $1.50, 88 mln dlrs → $88 million, 10.8 pct → 10.8%, Feb 26 → February 26) and
rounded (6,036 mln → 6.04 billion, 16.00 dlrs → 16 dlrs, 3,677,272 → 3.68 mln, 12.217 billion → 12.2 billion).
gold_doc_ids: every report of every gold story; gold_answers: the answers as written and in the exact notation
(rounded forms are not gold strings). Per answerable question its story's 2 nearest other stories (BM25, frozen
stopwords of bench/knowledge/golden-terms.ts) that hold no gold answer.

Unanswerable: a story cut out of the whole set (its question asks what only it told), or a fact no story states about
an entity the set holds; each carries probes — a string that must occur in no document, or strings that must not
occur together in one sentence — checked mechanically with their rewritten forms (failures dropped, listed below);
documents: 5 related stories (named ones, then BM25 neighbours).

Split: held out when sha256("ragtime-open-sets-v1:news-en:" + unit)[0..8] % 10 < 3; a unit is a story (or a group of
stories telling one event).
`;
