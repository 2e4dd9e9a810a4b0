import type { EvidenceSignal, GradeInput } from '../../../../core/offline-policy/grade-policy';
import { questionTerms, type TaggedWord } from '../../../../core/offline-policy/question-terms';
import { gradingSentences, MEANING_SENTENCES_PER_CHUNK } from '../../../../core/grading/grading-sentences';
import { gradeSignals, SIGNAL_NAMES, type ReadSentence } from '../../../../core/grading/signals';
import { answerProbability, contributions } from '../../../../core/grading/fitted-decision';
import { FITTED_DECISION } from '../../../../core/grading/decision-coefficients';
import { meaningGrade } from '../../../../core/grading/meaning-grade';
import { EvidenceGrade } from '../../../../core/schemas/model-outputs';

// Words as jieba's precise mode tags them; hard-coded so this test needs no tokenizer (as offline-policy.test.ts).
const w = (spec: string): TaggedWord[] =>
  spec.split(' ').map((item) => {
    const at = item.lastIndexOf('/');
    const word = item.slice(0, at);
    return { word: word === '_' ? ' ' : word, tag: item.slice(at + 1) };
  });
const flat = () => 1;
const input = (words: TaggedWord[], evidence: EvidenceSignal[]): GradeInput => {
  const question = words.map((x) => x.word).join('');
  return { question, words, terms: questionTerms(question, words, flat), evidence };
};
const doc = (filename: string, text: string, titleNames: string[] = []): EvidenceSignal => ({ filename, title: filename.replace(/\.[^.]+$/, ''), text, titleNames });
/** Sentences of the evidence read as if the model found them this near the question. */
const read = (evidence: EvidenceSignal[], similarity: (text: string) => number): ReadSentence[] =>
  gradingSentences(evidence.map((e) => ({ filename: e.filename, text: e.text }))).map((s) => ({ ...s, similarity: similarity(s.text) }));

const unpack = w('How/eng _/x can/eng _/x I/eng _/x unpack/eng _/x a/eng _/x gzipped/eng _/x tarball/eng ?/x');
const tar = doc('tar.md', '# tar\nArchiving utility.\nExtract a (compressed) archive file into the target directory.\n`tar xf source.tar.gz --directory dir`');
const ps = doc('ps.md', '# ps\nInformation about running processes.\nList all running processes.');

describe('grading by meaning (issue 42 §2–§3): signals, a fitted decision, routes', () => {
  test('the sentences read carry their chunk context in the embedded text, headings left out', () => {
    const sentences = gradingSentences([{ filename: 'tar.md', text: '# tar\nExtract an archive.', context: 'tar › Examples' }]);
    expect(sentences).toEqual([{ chunk: 0, text: 'Extract an archive.', embedText: 'tar › Examples: Extract an archive.' }]);
    const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i}.`).join(' ');
    expect(gradingSentences([{ filename: 'a.txt', text: long }])).toHaveLength(MEANING_SENTENCES_PER_CHUNK);
  });

  test('a paraphrase with no shared words is seen by meaning, not by word coverage', () => {
    const evidence = [tar, ps];
    const signals = gradeSignals(input(unpack, evidence), read(evidence, (text) => (text.startsWith('Extract') ? 0.9 : 0.75)));
    expect(signals.best_similarity).toBe(0.9);
    expect(signals.similarity_margin).toBeGreaterThan(0);
    expect(signals.overall_coverage).toBeLessThan(0.5);
    expect(Object.keys(signals)).toEqual([...SIGNAL_NAMES]);
  });

  test('the kind of answer asked for: a version asked and none stated among the nearest sentences', () => {
    const rsync = doc('rsync.md', '# rsync\nSynchronize files.\nShow progress during transfer with --info=progress2.');
    const words = w('Which/eng _/x rsync/eng _/x version/eng _/x introduced/eng _/x --/x info/eng =/x progress2/eng ?/x');
    const signals = gradeSignals(input(words, [rsync]), read([rsync], () => 0.85));
    expect(signals.asks_kind).toBe(1);
    expect(signals.kind_stated).toBe(0);
  });

  test('the fitted decision is monotone in meaning: nearer sentences never lower P(answers)', () => {
    const evidence = [tar, ps];
    const at = (sim: number) => answerProbability(gradeSignals(input(unpack, evidence), read(evidence, () => sim)), FITTED_DECISION);
    const weight = FITTED_DECISION.weights[FITTED_DECISION.signals.indexOf('best_similarity')] ?? 0;
    expect(weight).toBeGreaterThan(0);
    expect(at(0.95)).toBeGreaterThanOrEqual(at(0.7));
    expect(FITTED_DECISION.fittedOn.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test('the reason names the probability and the signals that weighed most', () => {
    const evidence = [tar];
    const signals = gradeSignals(input(unpack, evidence), read(evidence, () => 0.9));
    const grade = EvidenceGrade.parse(meaningGrade(input(unpack, evidence), signals));
    expect(grade.reason).toMatch(/P\(answers\)=\d/);
    expect(grade.reason).toContain(contributions(signals, FITTED_DECISION)[0]!.signal);
  });

  test('no evidence is no_knowledge; a question that refers to what it does not name is asked back', () => {
    expect(meaningGrade(input(unpack, []), gradeSignals(input(unpack, []), [])).route).toBe('no_knowledge');
    const which = w('这个/r 角色/n 的/uj 属性/n 是/v 什么/r ？/x');
    const evidence = [doc('a.md', '丹瑾的属性是虚数。')];
    const grade = meaningGrade(input(which, evidence), gradeSignals(input(which, evidence), read(evidence, () => 0.9)));
    expect(grade.route).toBe('clarify');
    expect(grade.missing_slots).toEqual(['角色名']);
  });

  test('far from everything the evidence says: not answered', () => {
    const evidence = [ps];
    const grade = meaningGrade(input(unpack, evidence), gradeSignals(input(unpack, evidence), read(evidence, () => 0.6)));
    expect(grade.route).not.toBe('answer');
  });
});
