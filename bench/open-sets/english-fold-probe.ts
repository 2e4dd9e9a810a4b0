import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { taggedWords } from '../../activities/adapters/jieba-reader';
import { gradeInput } from '../../activities/adapters/offline-chat-models';
import type { GradeInput } from '../../core/offline-policy/grade-policy';
import { namedWords, questionTerms } from '../../core/offline-policy/question-terms';
import { holdsTerm } from '../../core/offline-policy/term-coverage';
import { routeIsCorrect } from '../../core/eval/evaluate-question';
import { GRADE_THRESHOLDS, offlineGrade } from '../../core/offline-policy/grade-policy';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { REPO_ROOT } from '../knowledge/common';

/*
 * A probe, not a fix (issue 26 §2–§3): how much of the offline grader's loss on English questions comes from
 * reading English words as it reads unknown Chinese ones — every English word weighs the same (jieba's IDF table has
 * no English; 11.7 each), function words beyond a short list count ("have", "those", "out"), and word forms do not
 * meet ("managing" ≠ "manage", "kernels" ≠ "kernel"). It folds the question and the evidence the runs retrieved
 * (English function words dropped from the question, English words cut to a crude stem on both sides) and grades
 * them again in-process with the unchanged grader, first grade only, as bench/calibrate-offline-grader.ts does.
 * Reads the cases that tool cached (.data/calibration/*.jsonl; run it on the reports first).
 *
 * A second probe, --corpus DIR: the question's terms weighted by their inverse document frequency in the set's own
 * documents (DIR/docs, matched as the grader matches terms) instead of jieba's general Chinese table, where every
 * English word weighs 11.7 and "Debian" or "package" — in every document of a Debian FAQ — weighs as a rare name.
 *
 *   npx tsx bench/open-sets/english-fold-probe.ts [--english] [--corpus .data/golden/debian-faq] eval_debian_faq.jsonl […]
 */

type Case = { set: string; id: string; question: string; answerable: boolean; expected_route: null; gold_doc_ids: string[]; docs: Chunk[] };

const FUNCTION_WORDS = new Set(
  ('have has had all those these out get got one so some other others like etc am myself its their them they we our us if not no ' +
    'will may might must shall also only just very such more most each every between over then there here up doesn don t s ' +
    'isn aren wasn can cannot way ways thing things anything something much many still yet even well really want need instead')
    .split(' '),
);

/** A crude English stem: enough to meet "managing"/"manage", "kernels"/"kernel", "produced"/"produce". */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length <= 4) return w;
  for (const [suffix, keep] of [['ies', 'y'], ['ing', ''], ['ed', ''], ['es', ''], ['s', ''], ['ly', '']] as const) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) return `${w.slice(0, -suffix.length)}${keep}`.replace(/e$/, '');
  }
  return w.replace(/e$/, '');
}

/** English words to their stems (a capital kept, so the grader still sees names), function words dropped if asked. */
export function fold(text: string, dropFunctionWords: boolean): string {
  return text.replace(/[A-Za-z][A-Za-z'-]*/g, (word) => {
    if (dropFunctionWords && FUNCTION_WORDS.has(word.toLowerCase())) return '';
    const s = stem(word);
    return /^[A-Z]/.test(word) ? s[0]!.toUpperCase() + s.slice(1) : s;
  });
}

/** Inverse document frequency over a folder of documents, a term found as the grader finds it (holdsTerm). */
function corpusIdf(dir: string): (term: string) => number {
  const texts: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else texts.push(readFileSync(full, 'utf8').toLowerCase());
    }
  };
  walk(path.join(dir, 'docs'));
  const cache = new Map<string, number>();
  return (term: string) => {
    let idf = cache.get(term);
    if (idf === undefined) {
      const exact = /^[\p{Script=Latin}\p{N}._+#-]+$/u.test(term);
      const df = texts.filter((text) => holdsTerm(text, { term, exact, weight: 0, required: false })).length;
      idf = Math.log((texts.length + 1) / (df + 1)) + 1;
      cache.set(term, idf);
    }
    return idf;
  };
}

/** gradeInput (activities/adapters/offline-chat-models.ts) with another IDF. */
function gradeInputWith(question: string, evidence: readonly Chunk[], idf: (term: string) => number): GradeInput {
  const base = gradeInput(question, evidence);
  const words = taggedWords(question);
  return { ...base, terms: questionTerms(question, words, idf), evidence: base.evidence.map((e) => ({ ...e, titleNames: namedWords(e.title, taggedWords(e.title)) })) };
}

let idfOverride: ((term: string) => number) | null = null;

function score(cases: readonly Case[], folded: boolean) {
  const t = { answerable: 0, answered: 0, unanswerable: 0, declined: 0 };
  for (const c of cases) {
    const docs = folded ? c.docs.map((d) => ({ ...d, text: fold(d.text ?? '', false) })) : c.docs;
    const question = folded ? fold(c.question, true) : c.question;
    const grade = offlineGrade(idfOverride ? gradeInputWith(question, docs, idfOverride) : gradeInput(question, docs), GRADE_THRESHOLDS);
    const route = grade.route === 'rewrite' ? 'no_knowledge' : grade.route;
    if (c.answerable) {
      t.answerable += 1;
      t.answered += Number(route === 'answer');
    } else {
      t.unanswerable += 1;
      t.declined += Number(routeIsCorrect({ answerable: false }, route));
    }
  }
  return t;
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(1)} %`);

function main(): void {
  const { positionals, values } = parseArgs({ options: { english: { type: 'boolean', default: false }, corpus: { type: 'string' } }, allowPositionals: true });
  if (values.corpus) idfOverride = corpusIdf(values.corpus);
  for (const file of positionals) {
    const full = existsSync(file) ? file : path.join(REPO_ROOT, '.data', 'calibration', file);
    const all = readFileSync(full, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Case);
    // --english: only the English questions (the fold does nothing to Chinese words).
    const cases = values.english ? all.filter((c) => !/\p{Script=Han}/u.test(c.question)) : all;
    for (const folded of [false, true]) {
      const t = score(cases, folded);
      console.log(`${path.basename(full)} (${cases.length}) ${folded ? 'folded  ' : 'as is   '} answerable→answer ${pct(t.answered, t.answerable)}  unanswerable→not ${pct(t.declined, t.unanswerable)}  accuracy ${pct(t.answered + t.declined, cases.length)}`);
    }
  }
}

main();
