import { createHash } from 'node:crypto';
import { normalizeForMatch } from '../../core/answer/verify-answer';
import { type CmrcArticle, DEFAULT_CMRC_FILE, loadCmrc } from '../knowledge/common';
import { type Document, type UnitQuestion, isCutOut, leaks } from './common';
import type { BuiltSet } from './debian-faq';
import { bm25Neighbours, chineseTerms } from './news-neighbours';
import { chineseSentences, presentProbes, rewriteChineseNumbers, rotate } from './news-transform';

/*
 * Set `news-zh` (issue 42 §7): Chinese facts told by several reports, from CMRC 2018 dev (read in place, never
 * copied into the repository). A unit is a CMRC article (one paragraph); its questions are CMRC's own.
 *
 * Answerable unit (hash bit even, common.ts isCutOut): three reports of its paragraph — `<article>/source.txt` (the
 * paragraph under its title), and two made by documented transformations (news-transform.ts): another outlet's
 * heading ("# 新华网：<title>"), sentences rotated (+1 / −1), numbers and dates written `exact` (1313851 →
 * 1,313,851; 2008年5月12日 → 2008-05-12) or `rounded` (131.4万; 2008年5月) — plus its 2 nearest other paragraphs
 * (BM25 over jieba terms, the frozen stopwords of bench/knowledge/golden-terms.ts) that do not hold the answer.
 * Unanswerable unit (hash bit odd): its 5 nearest other paragraphs; its own paragraph (and so every copy of it) is in
 * no set document, and none of its CMRC answers (as written or rewritten) nor its paragraph's long sentences may
 * occur in any document — checked as units are added; a unit that fails is dropped and listed.
 *
 * Questions: 60 % of each kind ask for a number or date (an answer holding a digit; those whose notation the
 * rewriting changes first), the rest are the first questions of articles without such a question; hash order.
 */

export const NEWS_ZH_SET = 'news-zh';
const ANSWERABLE = 40;
/** The share of questions (of each kind) whose answer holds a number or date (the issue asks for half or more). */
const NUMERIC_SHARE = 0.6;
const UNANSWERABLE = 20;
const DISTRACTORS = 2;
const RELATED = 5;
const SPARE = 3;
const OUTLETS: ReadonlyArray<readonly [string, string]> = [
  ['xinhua', '新华网'],
  ['people', '人民网'],
  ['chinanews', '中国新闻网'],
  ['cctv', '央视网'],
];

type Question = CmrcArticle['questions'][number];
type Pick = { index: number; question: Question; tier: number };

const hashOf = (salt: string, unit: string) => createHash('sha256').update(`ragtime-open-sets-v1:${salt}:${unit}`).digest('hex');
export const sourceDoc = (a: CmrcArticle): Document => ({ id: `${a.id}/source.txt`, text: `# ${a.title}\n\n${a.context}\n` });

/** 0: the answer's notation changes when rewritten (a large number, a full date); 1: it holds a digit; 2: neither. */
export function numberTier(answer: string): 0 | 1 | 2 {
  if (rewriteChineseNumbers(answer, 'exact') !== answer || rewriteChineseNumbers(answer, 'rounded') !== answer) return 0;
  return /\d/.test(answer) ? 1 : 2;
}

/** The two further reports of a paragraph (see the header). */
export function furtherReports(a: CmrcArticle): Document[] {
  const k = parseInt(hashOf(`outlets:${NEWS_ZH_SET}`, a.id).slice(0, 8), 16) % OUTLETS.length;
  const [first, second] = [OUTLETS[k]!, OUTLETS[(k + 1) % OUTLETS.length]!];
  const sentences = chineseSentences(a.context);
  return [
    { id: `${a.id}/${first[0]}.txt`, text: rewriteChineseNumbers(`# ${first[1]}：${a.title}\n\n${rotate(sentences, 1).join('')}\n`, 'exact') },
    { id: `${a.id}/${second[0]}.txt`, text: rewriteChineseNumbers(`# ${second[1]}：${a.title}\n\n${rotate(sentences, -1).join('')}\n`, 'rounded') },
  ];
}

/**
 * Candidates in hash order: `numeric` — articles with a question whose answer holds a digit (that question; those
 * whose notation the rewriting changes first) — and `other` — the remaining articles with their first question.
 */
function candidatesOf(articles: readonly CmrcArticle[], pool: readonly number[]): { numeric: Pick[]; other: Pick[] } {
  const ranked = pool.flatMap((index) => {
    const best = articles[index]!.questions
      .filter((q) => q.answers.length > 0)
      .map((question) => ({ question, tier: Math.min(...question.answers.map(numberTier)) }))
      .sort((x, y) => x.tier - y.tier)[0];
    return best === undefined ? [] : [{ index, ...best }];
  });
  return {
    numeric: ranked.filter((r) => r.tier < 2).sort((x, y) => x.tier - y.tier),
    other: ranked.filter((r) => r.tier === 2),
  };
}

/** The answers and their exact rewritten forms (1313851 → 1,313,851; 2008年5月12日 → 2008-05-12). */
const forms = (answers: readonly string[]) => [...new Set([...answers, ...answers.map((a) => rewriteChineseNumbers(a, 'exact'))])];
const holds = (text: string, answers: readonly string[]) => answers.some((a) => normalizeForMatch(text).includes(normalizeForMatch(a)));

export function buildNewsZh(file = DEFAULT_CMRC_FILE): BuiltSet {
  const articles = loadCmrc(file)
    // An annotator's answer that the paragraph does not hold (a spreadsheet's date number, "39764.0") is not a gold string.
    .map((a) => ({ ...a, questions: a.questions.map((q) => ({ ...q, answers: q.answers.filter((x) => a.context.includes(x)) })) }))
    .filter((a) => a.questions.length > 0);
  const order = articles.map((a, i) => ({ i, h: hashOf(`order:${NEWS_ZH_SET}`, a.id) })).sort((x, y) => (x.h < y.h ? -1 : 1)).map((x) => x.i);
  const answerablePool = order.filter((i) => !isCutOut(NEWS_ZH_SET, articles[i]!.id));
  const unanswerablePool = order.filter((i) => isCutOut(NEWS_ZH_SET, articles[i]!.id));
  const neighbours = bm25Neighbours(articles.map((a) => `${a.title}\n${a.context}`), chineseTerms);
  const notes: string[] = [];

  const quota = (n: number) => Math.ceil(n * NUMERIC_SHARE);
  const pool = candidatesOf(articles, answerablePool);
  const answerable = [...pool.numeric.slice(0, quota(ANSWERABLE)), ...pool.other.slice(0, ANSWERABLE - quota(ANSWERABLE))];
  const unanswerableCandidates = candidatesOf(articles, unanswerablePool);
  // Tried in order, at most SPARE times the quota of each kind: only these paragraphs are kept out of the documents.
  const candidates = [
    ...unanswerableCandidates.numeric.slice(0, SPARE * quota(UNANSWERABLE)),
    ...unanswerableCandidates.other.slice(0, SPARE * (UNANSWERABLE - quota(UNANSWERABLE))),
  ];
  // No unanswerable candidate's paragraph is ever a document, nor another answerable unit's as a distractor.
  const excluded = new Set([...answerable.map((p) => p.index), ...candidates.map((p) => p.index)]);

  const documents = new Map<string, Document>();
  const questions: UnitQuestion[] = [];
  for (const { index, question } of answerable) {
    const a = articles[index]!;
    const gold = [sourceDoc(a), ...furtherReports(a)];
    const answers = forms(question.answers);
    const others = neighbours(index, (j) => excluded.has(j) || holds(articles[j]!.context, answers)).slice(0, DISTRACTORS);
    for (const d of [...gold, ...others.map((j) => sourceDoc(articles[j]!))]) documents.set(d.id, d);
    questions.push({ unit: a.id, id: `news-zh-${question.id}`, question: question.question, answerable: true, gold_doc_ids: gold.map((d) => d.id).sort(), gold_answers: answers });
  }

  // Unanswerable units one by one: kept when their answers and sentences are absent from the documents with their
  // own related paragraphs added, and every unit kept before stays absent.
  const kept: Array<{ a: CmrcArticle; probes: string[][] }> = [];
  const absent = (unit: { a: CmrcArticle; probes: string[][] }, docs: readonly Document[]) => {
    const found = presentProbes(unit.probes, docs);
    return found.length > 0 ? found : leaks(unit.a.context, [], docs.map((d) => normalizeForMatch(d.text)).join('\n'));
  };
  let tried = 0;
  let keptNumeric = 0;
  for (const { index, question, tier } of candidates) {
    if (kept.length >= UNANSWERABLE) break;
    if (tier < 2 ? keptNumeric >= quota(UNANSWERABLE) : kept.length - keptNumeric >= UNANSWERABLE - quota(UNANSWERABLE)) continue;
    tried += 1;
    const a = articles[index]!;
    const related = neighbours(index, (j) => excluded.has(j)).slice(0, RELATED).map((j) => sourceDoc(articles[j]!));
    const trial = [...documents.values(), ...related.filter((d) => !documents.has(d.id))];
    const unit = { a, probes: [...new Set([...forms(question.answers), ...question.answers.map((x) => rewriteChineseNumbers(x, 'rounded'))])].map((p) => [p]) };
    const found = absent(unit, trial);
    const broken = kept.find((k) => absent(k, trial).length > 0);
    if (found.length > 0 || broken) {
      notes.push(`dropped unanswerable ${a.id} (${question.question}): ${found.length > 0 ? `"${found[0]!.slice(0, 40)}" occurs in a document` : `its paragraphs would hold the answer of ${broken!.a.id}`}`);
      continue;
    }
    kept.push(unit);
    if (tier < 2) keptNumeric += 1;
    for (const d of related) documents.set(d.id, d);
    questions.push({ unit: a.id, id: `news-zh-${question.id}`, question: question.question, answerable: false, gold_doc_ids: [], gold_answers: [] });
  }
  const numeric = (picks: readonly Pick[]) => `${picks.filter((p) => p.tier < 2).length} (${picks.filter((p) => p.tier === 0).length} rewritten)`;
  const changes = (text: string) => rewriteChineseNumbers(text, 'exact') !== text || rewriteChineseNumbers(text, 'rounded') !== text;
  const rewritten = answerable.filter(({ index }) => changes(articles[index]!.context)).length;
  const keptPicks = candidates.filter((p) => kept.some((k) => k.a === articles[p.index]));
  notes.unshift(
    `${articles.length} CMRC 2018 dev paragraphs; ${answerable.length} answerable units told three times (${rewritten} with a number or date rewritten), ${kept.length} unanswerable kept of ${tried} candidates tried in order; ${documents.size} documents`,
    `answers holding a number or date: ${numeric(answerable)} of ${answerable.length} answerable, ${numeric(keptPicks)} of ${kept.length} unanswerable`,
  );
  return { documents: [...documents.values()], questions, notes };
}

export const NEWS_ZH_README = `# news-zh (open evaluation set, issue 42 §7; built by bench/build-open-sets.ts — do not commit)

Source: CMRC 2018 dev (Cui et al., EMNLP 2019; CC BY-SA 4.0), read in place from ../shared/eval/cmrc2018/.
Questions and answers are CMRC's own (human-written).

Documents: <article>/source.txt is a CMRC paragraph under its title. For each answerable unit two further reports of
the same paragraph, made mechanically (bench/open-sets/news-transform.ts): <article>/<outlet>.txt under another
outlet's heading ("# 新华网：<title>"; the outlet names are a label, not a source), sentences rotated by +1 (report 2)
and −1 (report 3), numbers and dates written exact (1313851 → 1,313,851; 131万 → 1,310,000; 2008年5月12日 →
2008-05-12) and rounded (1313851 → 131.4万; 4.81万 → 4.8万; 2008年5月12日 → 2008年5月, not inside a range).
gold_doc_ids: the three reports; gold_answers: CMRC's answers and their exact forms (rounded forms are not gold
strings). Per answerable question its 2 nearest other paragraphs by BM25 that hold none of its answers.

Unanswerable: the 5 nearest other paragraphs of a paragraph that is in no document of the set; none of the question's
answers (as written, exact or rounded) nor the paragraph's sentences of 20+ characters occurs in any document
(checked; failures dropped and listed below).

Answerable or not: sha256("ragtime-open-sets-v1:news-zh:" + article id)[8..16] odd → unanswerable. Split: held out
when sha256("ragtime-open-sets-v1:news-zh:" + article id)[0..8] % 10 < 3.
`;
