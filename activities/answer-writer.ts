import { answerOfDraft, documentTexts } from '../core/answer/answer-of-draft';
import { applyAnswerCheck } from '../core/answer/answer-check';
import { placeMissingMarkers } from '../core/answer/place-markers';
import { verifyAnswer } from '../core/answer/verify-answer';
import { formatDocs } from '../core/graph/format-docs';
import { AnswerDraft, UnansweredPart, type AnswerCheckAction, type RagAnswer } from '../core/schemas/answer';
import type { AnswerTextListener } from '../core/model-output/answer-text-event';
import type { GenerateAnswerInput } from './contracts';
import { parseModelOutput, rethrowAsModelOutput } from './model-output';
import type { CallReport, ChatModels } from './ports';

/** The draft an answer was made from, as the repair prompt shows it to the writer (a withheld text, not its stand-in). */
const draftOf = (answer: RagAnswer): AnswerDraft => ({
  answer: answer.withheld_text ?? answer.text,
  citations: answer.citations.map(({ marker, doc_index, quote }) => ({ marker, doc_index, quote })),
});

/**
 * One generation of the answer node (DESIGN §3.6): the writer's draft, parsed with its schema (a violation takes the
 * model calls' retry-twice-then-fail path), verified against the evidence, made into the outcome's answer. The
 * generateAnswer activity runs it; so does the answer evaluation (bench/eval-answers.ts), outside Temporal. The
 * answer check (issue 26 §4) runs with the verification; `answerCheck` (ANSWER_CHECK_ACTION, default `warn`) says
 * what it does with its findings, and a refused answer's text is withheld here.
 */
export async function writeVerifiedAnswer(
  models: ChatModels,
  { question, docs, repair, conversation }: GenerateAnswerInput,
  attempt: number,
  now: () => number,
  report?: CallReport,
  answerCheck: AnswerCheckAction = 'warn',
  onText?: AnswerTextListener,
): Promise<RagAnswer> {
  const where = { model: models.answerModel, schema: 'answer_draft', attempt };
  const started = now();
  const request = {
    question,
    context: formatDocs(docs),
    evidence: docs,
    ...(repair ? { repair: { previous: draftOf(repair.previous), verification: repair.previous.verification } } : {}),
    ...(conversation ? { conversation } : {}),
    // Issue 25 §2: the text as the writer generates it, for listeners; the validated reply below stays the record.
    ...(onText ? { onText } : {}),
  };
  let raw: unknown;
  try {
    raw = await models.writeAnswer(request, report);
  } catch (error) {
    return rethrowAsModelOutput(error, where);
  }
  const draft = placeMissingMarkers(parseModelOutput(AnswerDraft, raw, where), documentTexts(docs));
  const verification = verifyAnswer(draft, documentTexts(docs), { question, action: answerCheck });
  const answer = answerOfDraft(draft, docs, verification, { model: models.answerModel, durationMs: now() - started, repairAttempted: repair !== undefined });
  // Beside the draft's schema (which a model's structured output follows): the parts the extractive answerer found
  // no evidence for (issue 42 §5).
  const unanswered = UnansweredPart.array().safeParse((raw as { unanswered_parts?: unknown } | null)?.unanswered_parts);
  return applyAnswerCheck(unanswered.success && unanswered.data.length > 0 ? { ...answer, unanswered_parts: unanswered.data } : answer, question);
}
