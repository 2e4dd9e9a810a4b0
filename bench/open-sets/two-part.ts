import { createHash } from 'node:crypto';
import { normalizeForMatch } from '../../core/answer/verify-answer';
import { type CmrcArticle, DEFAULT_CMRC_FILE, loadCmrc } from '../knowledge/common';
import type { Document, UnitQuestion } from './common';
import type { BuiltSet } from './debian-faq';
import { bm25Neighbours, chineseTerms } from './news-neighbours';
import { sourceDoc } from './news-zh';
import { chineseSentences, joinQuestions } from './news-transform';

/*
 * Set `two-part` (issue 42 §7): Chinese questions of two parts whose answers are in two different documents, from
 * CMRC 2018 dev (read in place). A unit is a CMRC article; articles in hash order.
 *
 * Of an article, the first two of its questions (CMRC's order) whose answers each occur once in the paragraph, in
 * different sentences, neither holding the other. The paragraph is split into two documents at the sentence boundary
 * after the earlier answer's sentence — `<article>/part-1.txt`, `<article>/part-2.txt`, each under the article's
 * title — so each document answers exactly one part (checked). The two questions are joined by joinQuestions
 * (news-transform.ts): "<q1>？另外，<q2>？", the subject dropped from q2 when both name it at the start. Per question
 * also its paragraph's 2 nearest other paragraphs (BM25 over jieba terms, frozen stopwords) holding neither answer.
 *
 * gold_doc_ids: both parts. gold_answers: [q1's answer, q2's answer] — for each, its first CMRC answer that occurs once
 * in the paragraph (the golden-set schema is strict, so the parts cannot be recorded as a field; the question id
 * names both CMRC question ids, `two-part-<q1 id>+<q2 id>`, and gold_answers follow the question's order). `ragtime eval`'s
 * answer-holds-gold check is met by either answer; whether both are answered is for the reader of the answers.
 */

export const TWO_PART_SET = 'two-part';
const QUESTIONS = 40;
const DISTRACTORS = 2;

type Question = CmrcArticle['questions'][number];
export type TwoPart = { q1: Question; q2: Question; a1: string; a2: string; parts: [string, string] };

/** The index of the sentence that holds `answer`, when it occurs exactly once in the paragraph; else null. */
function sentenceOf(sentences: readonly string[], context: string, answer: string): number | null {
  const at = context.indexOf(answer);
  if (at < 0 || context.indexOf(answer, at + 1) >= 0) return null;
  let end = 0;
  for (let i = 0; i < sentences.length; i += 1) {
    end += sentences[i]!.length;
    if (at < end) return at + answer.length <= end ? i : null; // an answer across a sentence stop is not one sentence's
  }
  return null;
}

/** The two-part question of an article, or null (see the header). */
export function twoPartOf(article: CmrcArticle): TwoPart | null {
  const sentences = chineseSentences(article.context);
  if (sentences.join('') !== article.context) return null;
  const placed = article.questions.flatMap((q) => {
    const answer = q.answers.find((a) => a.trim() !== '' && sentenceOf(sentences, article.context, a) !== null);
    return answer === undefined ? [] : [{ q, answer, sentence: sentenceOf(sentences, article.context, answer)! }];
  });
  for (let i = 0; i < placed.length; i += 1) {
    for (let j = i + 1; j < placed.length; j += 1) {
      const [x, y] = [placed[i]!, placed[j]!];
      if (x.sentence === y.sentence || x.answer.includes(y.answer) || y.answer.includes(x.answer)) continue;
      const cut = Math.min(x.sentence, y.sentence) + 1;
      const parts: [string, string] = [sentences.slice(0, cut).join(''), sentences.slice(cut).join('')];
      const [early, late] = x.sentence < y.sentence ? [x, y] : [y, x];
      const inPart = (k: 0 | 1, a: string) => normalizeForMatch(parts[k]).includes(normalizeForMatch(a));
      if (!inPart(0, early.answer) || inPart(1, early.answer) || !inPart(1, late.answer) || inPart(0, late.answer)) continue;
      return { q1: x.q, q2: y.q, a1: x.answer, a2: y.answer, parts };
    }
  }
  return null;
}

export function buildTwoPart(file = DEFAULT_CMRC_FILE): BuiltSet {
  const articles = loadCmrc(file).filter((a) => a.questions.length > 1);
  const hash = (a: CmrcArticle) => createHash('sha256').update(`ragtime-open-sets-v1:order:${TWO_PART_SET}:${a.id}`).digest('hex');
  const order = articles.map((a, i) => ({ i, h: hash(a) })).sort((x, y) => (x.h < y.h ? -1 : 1)).map((x) => x.i);
  const chosen: Array<{ index: number; two: TwoPart }> = [];
  let without = 0;
  for (const index of order) {
    if (chosen.length >= QUESTIONS) break;
    const two = twoPartOf(articles[index]!);
    if (two === null) without += 1;
    else chosen.push({ index, two });
  }
  const neighbours = bm25Neighbours(articles.map((a) => `${a.title}\n${a.context}`), chineseTerms);
  const taken = new Set(chosen.map((c) => c.index));
  const documents = new Map<string, Document>();
  const questions: UnitQuestion[] = [];
  for (const { index, two } of chosen) {
    const a = articles[index]!;
    const parts = two.parts.map((text, k) => ({ id: `${a.id}/part-${k + 1}.txt`, text: `# ${a.title}\n\n${text}\n` }));
    const holds = (text: string) => [two.a1, two.a2].some((x) => normalizeForMatch(text).includes(normalizeForMatch(x)));
    const others = neighbours(index, (j) => taken.has(j) || holds(articles[j]!.context)).slice(0, DISTRACTORS);
    for (const d of [...parts, ...others.map((j) => sourceDoc(articles[j]!))]) documents.set(d.id, d);
    questions.push({
      unit: a.id,
      id: `two-part-${two.q1.id}+${two.q2.id}`,
      question: joinQuestions(two.q1.question, two.q2.question, a.title),
      answerable: true,
      gold_doc_ids: parts.map((d) => d.id),
      gold_answers: [two.a1, two.a2],
    });
  }
  const notes = [
    `${chosen.length} two-part questions from the first ${chosen.length + without} articles in hash order (${without} had no two questions answered once each in different sentences); ${documents.size} documents`,
  ];
  return { documents: [...documents.values()], questions, notes };
}

export const TWO_PART_README = `# two-part (open evaluation set, issue 42 §7; built by bench/build-open-sets.ts — do not commit)

Source: CMRC 2018 dev (Cui et al., EMNLP 2019; CC BY-SA 4.0), read in place from ../shared/eval/cmrc2018/.

Each question joins two of an article's CMRC questions (human-written) with the template "<q1>？另外，<q2>？" (the
article's title dropped from the start of q2 when q1 names it too). The article's paragraph is split at the sentence
boundary after the earlier answer's sentence into <article>/part-1.txt and <article>/part-2.txt (each under the
article's title), so that each part answers one half and not the other (checked). Per question also the paragraph's 2
nearest other paragraphs (BM25 over jieba terms) that hold neither answer, as <article>/source.txt.

gold_doc_ids: both parts. gold_answers: [q1's answer, q2's answer], in that order (the golden-set schema has no
field for parts; the id is two-part-<q1 id>+<q2 id>). All questions are answerable: a good answer states both.

Split: held out when sha256("ragtime-open-sets-v1:two-part:" + article id)[0..8] % 10 < 3.
`;
