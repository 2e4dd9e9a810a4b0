import { citationCheckText } from '../../core/answer/citation-check-text';
import { noKnowledgeText } from '../../core/answer/no-knowledge-text';
import { withoutRetrievalText } from '../../core/intent/without-retrieval-text';
import { answeredByText } from '../../core/run/answered-by';
import type { RagAnswer } from '../../core/schemas/answer';
import type { RagOutcome } from '../../core/schemas/run-io';
import { shownPage } from '../../core/schemas/page-number';

const oneLine = (text: string, length: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return [...flat].length > length ? `${[...flat].slice(0, length - 1).join('')}…` : flat;
};

/** The answer and its sources: the text, then a numbered list (file, page, the quoted span), then its verification. */
function answerLines(answer: RagAnswer, confidence: number | null | undefined): string[] {
  // A part of the question no evidence answers is said right under the answer (issue 42 §5), not left out silently.
  const lines = [answer.text, ...(answer.unanswered_parts ?? []).map((part) => part.notice), ''];
  if (answer.citations.length > 0) {
    lines.push('Sources');
    for (const citation of answer.citations) {
      const page = shownPage(citation.page_number) === null ? '' : `, p.${shownPage(citation.page_number)}`;
      lines.push(`  [${citation.marker}] ${citation.filename ?? '?'}${page} — "${oneLine(citation.quote, 160)}"`);
    }
  }
  const { verification } = answer;
  lines.push(`  ${citationCheckText(verification, confidence)}${answer.repair_attempted ? ' (after one repair)' : ''}`);
  for (const sentence of verification.uncited_sentences.slice(0, 3)) lines.push(`    not backed by a source: ${oneLine(sentence, 120)}`);
  return [...lines, ...answerCheckLines(answer)];
}

const ACTION_NOTE = {
  allow: 'reported only',
  warn: 'the answer is kept; check these against the sources',
  refuse: 'the answer was withheld (ANSWER_CHECK_ACTION=refuse)',
} as const;

/** The answer check's findings (issue 26 §4), when it had any: the action, then up to three of each kind. */
function answerCheckLines(answer: RagAnswer): string[] {
  const { action, numeric_warnings: numbers = [], unsupported_claims: claims = [] } = answer.verification;
  if (action === undefined) return [];
  return [
    `  answer check: ${action} — ${numbers.length} number(s) no cited quote holds, ${claims.length} claim(s) without support; ${ACTION_NOTE[action]}`,
    ...numbers.slice(0, 3).map((warning) => `    "${warning.token}" (${warning.kind}, ${warning.reason}) in: ${oneLine(warning.sentence, 100)}`),
    ...claims.slice(0, 3).map((claim) => `    claim without support (overlap ${claim.overlap}): ${oneLine(claim.sentence, 100)}`),
    ...(answer.withheld_text === undefined ? [] : [`    withheld: ${oneLine(answer.withheld_text, 160)}`]),
  ];
}

/** Who graded and wrote (issue 43 §5): a worker of another provider on the queue is seen here, not guessed. */
function answeredByLines(outcome: RagOutcome): string[] {
  return outcome.answered_by ? [`  answered by ${answeredByText(outcome.answered_by)}`] : [];
}

/**
 * What a person reads first about a completed run: the answer with its sources; on no_knowledge a sentence saying
 * so in the question's language; when the writer failed, that the evidence is what there is. Empty for runs that
 * are waiting or failed (their own lines say what happens).
 */
export function renderAnswer(outcome: RagOutcome): string[] {
  if (outcome.status !== 'completed') return [];
  // Issue 44 §5: a greeting's reply has no sources and nothing to verify; say why instead.
  if (outcome.answer && outcome.rag_trace?.needs_retrieval === false) return [outcome.answer.text, '', `  ${withoutRetrievalText(outcome.rag_trace.intent)}`, ...answeredByLines(outcome), ''];
  if (outcome.answer) return [...answerLines(outcome.answer, outcome.rag_trace?.evidence_confidence), ...answeredByLines(outcome), ''];
  if (outcome.route === 'no_knowledge') return [noKnowledgeText(outcome.rag_trace?.query ?? ''), ...answeredByLines(outcome), ''];
  if (outcome.answer_null_reason === 'answer_failed' && outcome.answer_error) {
    return [`The answer could not be written (${outcome.answer_error.type}: ${oneLine(outcome.answer_error.message, 160)}); the evidence below is what was found.`, ''];
  }
  return [];
}

/** The answer's record for `ragtime trace`: who wrote it, how long it took, how its citations verified. */
export function renderAnswerRecord(outcome: RagOutcome): string[] {
  const { answer } = outcome;
  if (!answer) return [`answer: none (${outcome.answer_null_reason ?? '-'})${outcome.answer_error ? ` ${outcome.answer_error.type}: ${oneLine(outcome.answer_error.message, 120)}` : ''}`];
  const invalid = answer.verification.invalid_citations.map((citation) => `[${citation.marker}] ${citation.reason}`);
  return [
    `answer: ${[...answer.text].length} chars, ${answer.citations.length} citation(s), ${answer.verification.status}` +
      `${answer.repair_attempted ? ', repaired once' : ''}; ${answer.model}, ${answer.prompt_version}, ${answer.duration_ms} ms`,
    ...(invalid.length > 0 ? [`  invalid citations: ${invalid.join(', ')}`] : []),
    ...answer.verification.uncited_sentences.map((sentence) => `  uncited: ${oneLine(sentence, 120)}`),
    ...(answer.verification.action === undefined
      ? []
      : [`  answer check: ${answer.verification.action}, ${answer.verification.numeric_warnings?.length ?? 0} numeric warning(s), ${answer.verification.unsupported_claims?.length ?? 0} unsupported claim(s)`]),
    ...(answer.verification.numeric_warnings ?? []).map((warning) => `  number: "${warning.token}" ${warning.kind} ${warning.reason}`),
    ...(answer.withheld_text === undefined ? [] : [`  withheld: ${oneLine(answer.withheld_text, 120)}`]),
  ];
}
