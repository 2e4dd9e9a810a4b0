import { answerOfDraft, documentTexts } from '../core/answer/answer-of-draft';
import { verifyAnswer } from '../core/answer/verify-answer';
import { formatDocs } from '../core/graph/format-docs';
import { AnswerDraft, type RagAnswer } from '../core/schemas/answer';
import type { GenerateAnswerInput } from './contracts';
import { parseModelOutput, rethrowAsModelOutput } from './model-output';
import type { CallReport, ChatModels } from './ports';

/** The draft an answer was made from, as the repair prompt shows it to the writer. */
const draftOf = (answer: RagAnswer): AnswerDraft => ({
  answer: answer.text,
  citations: answer.citations.map(({ marker, doc_index, quote }) => ({ marker, doc_index, quote })),
});

/**
 * One generation of the answer node (DESIGN §3.6): the writer's draft, parsed with its schema (a violation takes the
 * model calls' retry-twice-then-fail path), verified against the evidence, made into the outcome's answer. The
 * generateAnswer activity runs it; so does the answer evaluation (bench/eval-answers.ts), outside Temporal.
 */
export async function writeVerifiedAnswer(
  models: ChatModels,
  { question, docs, repair }: GenerateAnswerInput,
  attempt: number,
  now: () => number,
  report?: CallReport,
): Promise<RagAnswer> {
  const where = { model: models.answerModel, schema: 'answer_draft', attempt };
  const started = now();
  const request = {
    question,
    context: formatDocs(docs),
    evidence: docs,
    ...(repair ? { repair: { previous: draftOf(repair.previous), verification: repair.previous.verification } } : {}),
  };
  let raw: unknown;
  try {
    raw = await models.writeAnswer(request, report);
  } catch (error) {
    return rethrowAsModelOutput(error, where);
  }
  const draft = parseModelOutput(AnswerDraft, raw, where);
  const verification = verifyAnswer(draft, documentTexts(docs));
  return answerOfDraft(draft, docs, verification, { model: models.answerModel, durationMs: now() - started, repairAttempted: repair !== undefined });
}
