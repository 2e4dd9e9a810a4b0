import { extractiveAnswer } from '../../core/answer/extractive-answer';
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

/** Version of the offline rules, shown in run memos and worker start-up lines. */
export const OFFLINE_POLICY_VERSION = 'offline-policy v2';
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
      return { filename, title: documentTitle(chunk, evidence), text: chunk.text ?? '', titleNames: titleNames(fileStem(filename)) };
    }),
  };
}

/**
 * The offline answer writer: extractive. Its answers always verify, so a repair request never comes (it would get
 * the same answer). Also the answerer of test and benchmark doubles that script only the other models.
 */
export async function offlineWriteAnswer({ question, evidence, onText }: AnswerRequest): Promise<AnswerDraft> {
  const draft = extractiveAnswer(question, searchTokens(question), documentTexts(evidence));
  // Written at once, so it streams a sentence at a time (issue 25 §2): listeners see the same events as from a model.
  for (const text of sentencePieces(draft.answer)) onText?.({ kind: 'delta', text });
  return draft;
}

/** The text cut after each sentence's end (and its spaces); the pieces concatenate to the text. */
const sentencePieces = (text: string): string[] => text.match(/[\s\S]*?(?:[。！？!?]|\.(?=\s|$))\s*|[\s\S]+$/gu) ?? [];

/**
 * The embedded default provider: deterministic rules over the question's terms and the retrieval signals, no API
 * key needed (docs/offline-policy.md). It answers in the same shapes as a model, so the same validation applies.
 */
export function createOfflineChatModels(): ChatModels {
  return {
    describe: OFFLINE_POLICY_VERSION,
    answerModel: OFFLINE_ANSWERER,
    async planComplexity(question) {
      return offlinePlan(question);
    },
    async gradeEvidence(question, _context, evidence: Chunk[], _report, options) {
      return offlineGrade(gradeInput(question, evidence, options?.scope));
    },
    async planRewrite(question) {
      const words = taggedWords(question);
      return offlineRewrite(question, words, questionTerms(question, words, inverseDocumentFrequency));
    },
    writeAnswer: offlineWriteAnswer,
    async condenseQuestion(question, turns) {
      const condensed = offlineCondense(question, turns);
      return { standalone_question: condensed.standalone, depends_on_history: condensed.condensedBy === 'offline_rules', offline_rule: condensed.why };
    },
  };
}
