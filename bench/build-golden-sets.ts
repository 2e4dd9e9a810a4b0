import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict';
import type { GoldenQuestion } from '../core/eval/golden-set';
import { DEFAULT_CMRC_FILE, REPO_ROOT, type CmrcArticle, loadCmrc, seededRandom } from './knowledge/common';
import { goldenSetTerms } from './knowledge/golden-terms';

/*
 * Golden sets for `ragtime eval` built from CMRC 2018 dev (issue 13 §1; DESIGN §5C), written outside the repository
 * (default .data/golden/): the data is read in place from ../shared/eval/cmrc2018/ and never committed.
 *
 * - cmrc-retrieval: every paragraph a document, the first --retrieval-questions questions (retrieval and answers).
 * - cmrc-answerability: hard negatives. Sampled articles are split in two: for an answerable one, its paragraph and
 *   its 4 nearest other paragraphs (BM25 over jieba tokens) are documents; for an unanswerable one, only its 4–5
 *   nearest other paragraphs are — its own is left out of the whole set, so the related passages are there and the
 *   answer is not. One question of each sampled article.
 * - cmrc-agreement: a paragraph and a second source that says the same (its sentences in another order, under
 *   another name), plus unrelated paragraphs; the question must be answered, not sent to scope_select.
 * - cmrc-follow-ups (issue 25 §3): dialogues. Of an article whose title T is named in two or more of its questions,
 *   one question is asked first (and, every other dialogue, a second one), then another with T replaced by "它" — a
 *   follow-up that only the earlier turns resolve. Documents: the dialogues' paragraphs and their nearest others.
 *   cmrc-follow-ups-heldout: the next dialogues of the same order, disjoint from those.
 *
 * Data: CMRC 2018 (Cui et al., EMNLP 2019), CC BY-SA 4.0.
 *
 *   npx tsx bench/build-golden-sets.ts [--out DIR] [--answerable N] [--agreement N] [--seed N]
 */

const HELP = `usage: npx tsx bench/build-golden-sets.ts [options]
  --data FILE               cmrc2018_dev.json (default ../shared/eval/cmrc2018/cmrc2018_dev.json)
  --out DIR                 where the sets go (default .data/golden)
  --answerable N            answerable (and as many unanswerable) questions of cmrc-answerability (default 60)
  --neighbours N            nearest other paragraphs per sampled article (default 4; unanswerable ones get N+1)
  --agreement N             questions of cmrc-agreement (default 40)
  --follow-ups N            dialogues of cmrc-follow-ups (default 30; half two turns, half three)
  --retrieval-questions N   questions of cmrc-retrieval (default 500)
  --seed N                  sampling seed (default 2018)`;

const jieba = Jieba.withDict(dict);
const termsOf = (text: string): string[] => goldenSetTerms(jieba.cut(text, false));

/** Okapi BM25 (k1 1.2, b 0.75) over the paragraphs' jieba terms: the paragraphs nearest to each other. */
function bm25Index(articles: readonly CmrcArticle[]) {
  const docs = articles.map((article) => termsOf(article.context));
  const df = new Map<string, number>();
  for (const terms of docs) for (const term of new Set(terms)) df.set(term, (df.get(term) ?? 0) + 1);
  const avg = docs.reduce((sum, terms) => sum + terms.length, 0) / Math.max(1, docs.length);
  const tf = docs.map((terms) => terms.reduce((map, term) => map.set(term, (map.get(term) ?? 0) + 1), new Map<string, number>()));
  const idf = (term: string) => Math.log(1 + (docs.length - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5));
  return {
    nearest(index: number, count: number, exclude: ReadonlySet<number>): number[] {
      const query = [...new Set(docs[index] ?? [])];
      const scores = docs.map((terms, j) => {
        if (j === index || exclude.has(j)) return -1;
        const freq = tf[j]!;
        return query.reduce((sum, term) => {
          const f = freq.get(term) ?? 0;
          return f === 0 ? sum : sum + idf(term) * ((f * 2.2) / (f + 1.2 * (0.25 + (0.75 * terms.length) / avg)));
        }, 0);
      });
      return scores
        .map((score, j) => ({ score, j }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, count)
        .map((entry) => entry.j);
    },
  };
}

function writeSet(dir: string, documents: Array<{ id: string; text: string }>, questions: GoldenQuestion[]): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'docs'), { recursive: true });
  for (const document of documents) writeFileSync(path.join(dir, 'docs', document.id), document.text);
  writeFileSync(path.join(dir, 'questions.jsonl'), `${questions.map((q) => JSON.stringify(q)).join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'README.md'),
    `Built by bench/build-golden-sets.ts from CMRC 2018 dev (Cui et al., EMNLP 2019; CC BY-SA 4.0). Not to be committed.\n`,
  );
  console.log(`${dir}: ${documents.length} documents, ${questions.length} questions`);
}

const idOf = (article: CmrcArticle) => `${article.id}.txt`;

/**
 * The same content said another way: its sentences rotated by one, under a Markdown heading that names it a second
 * source (a heading, so that an answer quotes its sentences, not its title).
 */
function secondSource(article: CmrcArticle): string {
  const sentences = article.context.split(/(?<=[。！？])/u).filter((s) => s.trim() !== '');
  const rotated = sentences.length > 1 ? [...sentences.slice(1), sentences[0]] : sentences;
  return `# 资料汇编：${article.title}\n\n${rotated.join('')}`;
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: DEFAULT_CMRC_FILE },
      out: { type: 'string', default: path.join(REPO_ROOT, '.data', 'golden') },
      answerable: { type: 'string', default: '60' },
      neighbours: { type: 'string', default: '4' },
      agreement: { type: 'string', default: '40' },
      'follow-ups': { type: 'string', default: '30' },
      'retrieval-questions': { type: 'string', default: '500' },
      seed: { type: 'string', default: '2018' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const articles = loadCmrc(values.data).filter((article) => article.questions.length > 0);
  const random = seededRandom(Number(values.seed));
  const neighbours = Number(values.neighbours);
  const index = bm25Index(articles);
  const firstQuestion = (article: CmrcArticle, answerable: boolean): GoldenQuestion => {
    const q = article.questions[0]!;
    return answerable
      ? { id: q.id, question: q.question, answerable: true, gold_doc_ids: [idOf(article)], gold_answers: q.answers }
      : { id: q.id, question: q.question, answerable: false, gold_doc_ids: [], gold_answers: [] };
  };

  // cmrc-retrieval
  const retrievalQuestions = articles
    .flatMap((article) => article.questions.map((q) => ({ id: q.id, question: q.question, answerable: true, gold_doc_ids: [idOf(article)], gold_answers: q.answers })))
    .slice(0, Number(values['retrieval-questions']));
  writeSet(path.join(values.out, 'cmrc-retrieval'), articles.map((a) => ({ id: idOf(a), text: a.context })), retrievalQuestions);

  // cmrc-answerability: A answerable, B unanswerable (B's own paragraphs never in the set).
  const answerableCount = Number(values.answerable);
  const sampled = shuffle(articles.map((_, i) => i), random).slice(0, 2 * answerableCount);
  const answerable = sampled.slice(0, answerableCount);
  const unanswerable = sampled.slice(answerableCount);
  const excluded = new Set(unanswerable);
  const included = new Set<number>();
  for (const i of answerable) {
    included.add(i);
    for (const j of index.nearest(i, neighbours, excluded)) included.add(j);
  }
  for (const i of unanswerable) for (const j of index.nearest(i, neighbours + 1, excluded)) included.add(j);
  writeSet(
    path.join(values.out, 'cmrc-answerability'),
    [...included].sort((a, b) => a - b).map((i) => ({ id: idOf(articles[i]!), text: articles[i]!.context })),
    [...answerable.map((i) => firstQuestion(articles[i]!, true)), ...unanswerable.map((i) => firstQuestion(articles[i]!, false))],
  );

  // cmrc-agreement: each sampled paragraph twice (the second source said another way), among unrelated paragraphs.
  const agreeing = shuffle(articles.map((_, i) => i), random).slice(0, Number(values.agreement));
  const taken = new Set(agreeing);
  const distractors = shuffle(articles.map((_, i) => i).filter((i) => !taken.has(i)), random).slice(0, agreeing.length);
  const documents = [
    ...agreeing.flatMap((i) => [
      { id: idOf(articles[i]!), text: articles[i]!.context },
      { id: `${articles[i]!.id}-second-source.txt`, text: secondSource(articles[i]!) },
    ]),
    ...distractors.map((i) => ({ id: idOf(articles[i]!), text: articles[i]!.context })),
  ];
  writeSet(
    path.join(values.out, 'cmrc-agreement'),
    documents,
    agreeing.map((i) => {
      const question = firstQuestion(articles[i]!, true);
      return { ...question, gold_doc_ids: [idOf(articles[i]!), `${articles[i]!.id}-second-source.txt`] };
    }),
  );

  // cmrc-follow-ups: dialogues whose last question names the article's subject only as 它; the next as many, disjoint,
  // are cmrc-follow-ups-heldout (the offline condensation rules were tuned on the first set only).
  const count = Number(values['follow-ups']);
  const eligible = shuffle(articles.map((_, i) => i), random)
    .map((i) => followUpDialogue(articles[i]!, i))
    .filter((dialogue): dialogue is FollowUp => dialogue !== null);
  writeFollowUps(path.join(values.out, 'cmrc-follow-ups'), eligible.slice(0, count), articles, index, neighbours);
  writeFollowUps(path.join(values.out, 'cmrc-follow-ups-heldout'), eligible.slice(count, 2 * count), articles, index, neighbours);
}

/** A dialogue set: its paragraphs and their nearest others; every other dialogue keeps one earlier turn, not two. */
function writeFollowUps(dir: string, dialogues: FollowUp[], articles: CmrcArticle[], index: ReturnType<typeof bm25Index>, neighbours: number): void {
  const docs = new Set<number>();
  for (const { index: i } of dialogues) {
    docs.add(i);
    for (const j of index.nearest(i, neighbours, new Set())) docs.add(j);
  }
  writeSet(
    dir,
    [...docs].sort((a, b) => a - b).map((i) => ({ id: idOf(articles[i]!), text: articles[i]!.context })),
    dialogues.map(({ question }, n) => (n % 2 === 0 ? { ...question, turns: question.turns?.slice(0, 1) } : question)),
  );
}

type FollowUp = { index: number; question: GoldenQuestion };

/**
 * A dialogue of an article, or null: two questions that name its title T set the scene, a third (also naming T) is
 * asked with T replaced by "它". Titles of one character are skipped (too many false hits).
 */
function followUpDialogue(article: CmrcArticle, index: number): FollowUp | null {
  const title = article.title.trim();
  if ([...title].length < 2) return null;
  const naming = article.questions.filter((q) => q.question.includes(title));
  if (naming.length < 3) return null;
  const [first, second, last] = naming as [CmrcArticle['questions'][number], CmrcArticle['questions'][number], CmrcArticle['questions'][number]];
  return {
    index,
    question: {
      id: `${last.id}-follow-up`,
      turns: [first.question, second.question],
      question: last.question.replace(`《${title}》`, '它').replace(title, '它'),
      answerable: true,
      gold_doc_ids: [idOf(article)],
      gold_answers: last.answers,
    },
  };
}

main();
