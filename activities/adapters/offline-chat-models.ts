import { extractiveAnswer, type SentenceScore } from '../../core/answer/extractive-answer';
import { answerSentences } from '../../core/answer/answer-sentences';
import { questionParts } from '../../core/answer/question-parts';
import { documentTitle, fileStem } from '../../core/knowledge/document-title';
import { documentTexts } from '../../core/answer/answer-of-draft';
import { offlineGrade, type GradeInput } from '../../core/offline-policy/grade-policy';
import { offlinePlan } from '../../core/offline-policy/plan-policy';
import { namedWords, questionTerms } from '../../core/offline-policy/question-terms';
import { offlineRewrite } from '../../core/offline-policy/rewrite-policy';
import { offlineCondense } from '../../core/conversation/offline-condense';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { AnswerDraft } from '../../core/schemas/answer';
import type { AnswerRequest, ChatModels } from '../ports';
import { inverseDocumentFrequency, searchTokens, taggedWords } from './jieba-reader';
import { gradeSignals } from '../../core/grading/signals';
import { MEANING_SENTENCE_CHARS } from '../../core/grading/grading-sentences';
import { meaningGrade, type DecidedProbability } from '../../core/grading/meaning-grade';
import { combinedDecision } from '../../core/grading/probability-decision';
import { PROBABILITY_DECISION } from '../../core/grading/probability-coefficients';
import { FITTED_DECISION } from '../../core/grading/decision-coefficients';
import type { MeaningReader } from './meaning-reader';

/** Version of the offline rules, shown in run memos and worker start-up lines. */
export const OFFLINE_POLICY_VERSION = 'offline-policy v2';
/** The offline policy when it reads meaning (an embedding model is configured): the fitted decision's version. */
export const MEANING_POLICY_VERSION = `offline-policy v3 (${FITTED_DECISION.version})`;
/** The offline policy's answerer: sentences of the evidence, quoted (core/answer/extractive-answer.ts). */
export const OFFLINE_ANSWERER = `${OFFLINE_POLICY_VERSION} extractive`;

/**
 * What the offline grader reads of a question and its evidence: jieba's words and IDF, the documents' titles (their
 * first heading, else the file name) and the titles' named things. With a `scope` (a document a person chose), the
 * question is read without the scope the refined question starts with, and its referent counts as resolved.
 */
export function gradeInput(question: string, evidence: readonly Chunk[], scope?: string): GradeInput {
  const asked = scope && question.startsWith(`${scope}：`) ? question.slice(scope.length + 1) : question;
  const words = taggedWords(asked);
  const names = new Map<string, string[]>();
  const titleNames = (title: string): string[] => {
    if (!names.has(title)) names.set(title, namedWords(title, taggedWords(title)));
    return names.get(title) as string[];
  };
  return {
    question: asked,
    words,
    terms: questionTerms(asked, words, inverseDocumentFrequency),
    ...(scope ? { scope } : {}),
    evidence: evidence.map((chunk) => {
      // Shown to a person: the document's title (its first heading). What it is about, to tell documents apart: its
      // file name's names, as before — a heading shared by many documents (a FAQ's chapter title) tells none apart.
      const filename = chunk.filename ?? '';
      // A contextual leaf is graded with its title and heading path in front (issue 42 §1); quotes keep `text`.
      const text = chunk.context ? `${chunk.context}\n${chunk.text ?? ''}` : (chunk.text ?? '');
      return { filename, title: documentTitle(chunk, evidence), text, titleNames: titleNames(fileStem(filename)) };
    }),
  };
}

/**
 * The offline answer writer: extractive. Its answers always verify, so a repair request never comes (it would get
 * the same answer). Also the answerer of test and benchmark doubles that script only the other models.
 */
export const offlineAnswerWriter =
  (meaning?: MeaningReader) =>
  async ({ question, evidence, onText }: AnswerRequest): Promise<AnswerDraft> => {
    const tokens = searchTokens(question);
    const documents = documentTexts(evidence);
    // Without meaning (no model, or it is down), the answerer scores by words alone.
    const sentenceScore = meaning ? await meaningScores(meaning, question, tokens, documents, evidence).catch(() => undefined) : undefined;
    const draft = extractiveAnswer(question, tokens, documents, sentenceScore ? { sentenceScore } : {});
    // Written at once, so it streams a sentence at a time (issue 25 §2): listeners see the same events as from a model.
    for (const text of sentencePieces(draft.answer)) onText?.({ kind: 'delta', text });
    return draft;
  };

/** The offline answer writer by words alone (no embedding model): test and benchmark doubles use it. */
export const offlineWriteAnswer = offlineAnswerWriter();

/**
 * The answerer's score of meaning (issue 42 §5): each quotable sentence's similarity to the question, and to each
 * part of a question of several parts, read by the embedding model before the (pure, synchronous) answerer runs.
 */
async function meaningScores(meaning: MeaningReader, question: string, tokens: readonly string[], documents: readonly string[], evidence: readonly Chunk[]): Promise<SentenceScore> {
  const sentences = answerSentences(documents);
  const asked = [question, ...questionParts(question, tokens).map((part) => part.text)];
  // Read as the grader read them (core/grading/grading-sentences.ts: the chunk's context, then the sentence), so the
  // run's grade has embedded most of them already (the reader's cache).
  const read = sentences.map((sentence) => {
    const context = evidence[sentence.doc]?.context?.trim();
    const text = sentence.text.slice(0, MEANING_SENTENCE_CHARS);
    return context ? `${context}: ${text}` : text;
  });
  const table = new Map<string, number>();
  for (const q of new Set(asked)) {
    const sims = await meaning.similarities(q, read);
    sentences.forEach((sentence, i) => table.set(`${q}\u0000${sentence.doc}\u0000${sentence.text}`, sims[i] ?? 0));
  }
  return (doc, text, q) => table.get(`${q}\u0000${doc}\u0000${text}`) ?? Number.NaN;
}

/** The text cut after each sentence's end (and its spaces); the pieces concatenate to the text. */
const sentencePieces = (text: string): string[] => text.match(/[\s\S]*?(?:[。！？!?]|\.(?=\s|$))\s*|[\s\S]+$/gu) ?? [];

/**
 * The embedded default provider: deterministic rules over the question's terms and the retrieval signals, no API
 * key needed (docs/offline-policy.md). It answers in the same shapes as a model, so the same validation applies.
 */
export function createOfflineChatModels(options: { meaning?: MeaningReader } = {}): ChatModels {
  const { meaning } = options;
  async function gradeByRules(question: string, evidence: Chunk[], scope: string | undefined, decide?: (p: number) => DecidedProbability) {
    const input = gradeInput(question, evidence, scope);
    // Without an embedding model (in-process tools and tests), the word rules of v2 (docs/offline-policy.md).
    if (!meaning) return offlineGrade(input);
    // Meaning is read with the whole question: a person's pick ("Nimbus C1 摄像头用户手册：…") says what it is about.
    const sentences = await meaning.readSentences(question, evidence).catch((error: unknown) => error as Error);
    if (sentences instanceof Error) {
      // The embedding model is down after retrieval worked: grade by the word rules rather than fail the run, and say so.
      const grade = offlineGrade(input);
      return { ...grade, reason: `${grade.reason} (offline-policy v2: meaning unavailable, ${sentences.message.slice(0, 120)})` };
    }
    return meaningGrade(input, gradeSignals(input, sentences), FITTED_DECISION, decide);
  }
  return {
    describe: meaning ? MEANING_POLICY_VERSION : OFFLINE_POLICY_VERSION,
    answerModel: meaning ? `${MEANING_POLICY_VERSION} extractive` : OFFLINE_ANSWERER,
    async planComplexity(question) {
      return offlinePlan(question);
    },
    gradeEvidence: (question, _context, evidence: Chunk[], _report, options) => gradeByRules(question, evidence, options?.scope),
    // The grade by probability (issue 43 §1): the model's P(yes) per candidate combined with the offline decision.
    gradeWithYesProbabilities: (question, evidence, yes, options) =>
      gradeByRules(question, evidence, options?.scope, (offline) => combinedDecision(offline, yes, PROBABILITY_DECISION, FITTED_DECISION)),
    async planRewrite(question) {
      const words = taggedWords(question);
      return offlineRewrite(question, words, questionTerms(question, words, inverseDocumentFrequency));
    },
    writeAnswer: offlineAnswerWriter(meaning),
    async condenseQuestion(question, turns) {
      const condensed = offlineCondense(question, turns);
      return { standalone_question: condensed.standalone, depends_on_history: condensed.condensedBy === 'offline_rules', offline_rule: condensed.why };
    },
  };
}
