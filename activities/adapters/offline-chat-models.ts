import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict';
import { extractiveAnswer } from '../../core/answer/extractive-answer';
import { documentTexts } from '../../core/answer/answer-of-draft';
import { offlineGrade } from '../../core/offline-policy/grade-policy';
import { offlinePlan } from '../../core/offline-policy/plan-policy';
import { offlineRewrite } from '../../core/offline-policy/rewrite-policy';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { AnswerDraft } from '../../core/schemas/answer';
import type { AnswerRequest, ChatModels } from '../ports';

/** Version of the offline rules, shown in run memos and worker start-up lines. */
export const OFFLINE_POLICY_VERSION = 'offline-policy v1';
/** The offline policy's answerer: sentences of the evidence, quoted (core/answer/extractive-answer.ts). */
export const OFFLINE_ANSWERER = `${OFFLINE_POLICY_VERSION} extractive`;

let jieba: Jieba | null = null;
/** jieba's dictionary takes ~100 ms to load: once per process. */
function tokenizer(): Jieba {
  jieba ??= Jieba.withDict(dict);
  return jieba;
}

export function tokenize(text: string): string[] {
  return tokenizer().cutForSearch(text, true);
}

const titleOf = (filename: string): string => filename.replace(/\.[^./\\]+$/, '');

/**
 * The offline answer writer: extractive. Its answers always verify, so a repair request never comes (it would get
 * the same answer). Also the answerer of test and benchmark doubles that script only the other models.
 */
export async function offlineWriteAnswer({ question, evidence }: AnswerRequest): Promise<AnswerDraft> {
  return extractiveAnswer(question, tokenize(question), documentTexts(evidence));
}

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
    async gradeEvidence(question, _context, evidence: Chunk[]) {
      return offlineGrade({
        questionTokens: tokenize(question),
        evidence: evidence.map((chunk) => ({
          filename: chunk.filename ?? '',
          title: titleOf(chunk.filename ?? ''),
          text: chunk.text ?? '',
        })),
      });
    },
    async planRewrite(question) {
      return offlineRewrite(question, tokenize(question));
    },
    writeAnswer: offlineWriteAnswer,
  };
}
