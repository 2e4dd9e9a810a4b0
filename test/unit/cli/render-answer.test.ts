import { renderAnswer } from '../../../cli/render/answer';
import { citationCheckText } from '../../../core/answer/citation-check-text';
import type { AnswerVerification } from '../../../core/schemas/answer';
import type { RagOutcome } from '../../../core/schemas/run-io';

/* Issue 33 §6: "verified" means the quotes match their sources, not that the answer is right; the grade's confidence stands beside it. */

test('the citation check says what it checked, with the grade confidence beside it', () => {
  const verified: AnswerVerification = { status: 'verified', invalid_citations: [], uncited_sentences: [] };
  expect(citationCheckText(verified, 0.8)).toBe('citations verified (every quote matches its source; this does not prove the answer right) · grade confidence 0.80');
  const unmatched: AnswerVerification = { status: 'unverified', invalid_citations: [{ marker: 1, doc_index: 1, reason: 'quote_not_found' }], uncited_sentences: [] };
  expect(citationCheckText(unmatched, null)).toBe('citations not verified (the quote of [1] could not be matched to its source)');
});

// Issue 43 §4: an uncited sentence was reported as "the quotes could not be matched to the sources".
test('an answer whose sentence cites no source says so, not that its quotes could not be matched', () => {
  const uncited: AnswerVerification = { status: 'unverified', invalid_citations: [], uncited_sentences: ['Rsync 3.2.3 introduced --info=progress2.'] };
  expect(citationCheckText(uncited, 0.9)).toBe('citations not verified (a sentence cites no source) · grade confidence 0.90');
});

/** An answered outcome as `ask` renders it; `answer` fields override the defaults, `outcome` fields add to it. */
const answered = (answer: Record<string, unknown> = {}, outcome: Record<string, unknown> = {}): RagOutcome =>
  ({
    status: 'completed',
    route: 'answer',
    rag_trace: { evidence_confidence: 0.9 },
    answer: {
      text: 'A[1]。',
      citations: [{ marker: 1, doc_index: 1, chunk_id: null, filename: 'a.md', page_number: 0, quote: 'A' }],
      verification: { status: 'verified', invalid_citations: [], uncited_sentences: [] },
      model: 'm',
      prompt_version: 'p',
      duration_ms: 1,
      repair_attempted: false,
      ...answer,
    },
    ...outcome,
  }) as unknown as RagOutcome;

test('ask prints "citations verified" and the confidence, never a bare "verified:"', () => {
  const text = renderAnswer(answered()).join('\n');
  expect(text).toContain('  citations verified (every quote matches its source; this does not prove the answer right) · grade confidence 0.90');
  expect(text).not.toMatch(/^ {2}verified:/m);
});

// Issue 43 §5: one line under the answer says what graded and wrote it.
test('ask names the grader and the writer under the answer', () => {
  const outcome = answered(
    { model: 'offline-policy v2 extractive' },
    { answered_by: { provider: 'offline', endpoint: null, grader: 'offline-policy v3 (fit-1)', writer: 'offline-policy v2 extractive', models: 'offline-policy v3 (fit-1)' } },
  );
  const lines = renderAnswer(outcome);
  expect(lines.at(-2)).toBe('  answered by offline-policy v3 (fit-1) (grader) · offline-policy v2 extractive (writer)');
});

// Issue 42 §5: a question of two parts whose second part no evidence answers says so under the answer.
test('a part of the question no evidence answers is said right under the answer', () => {
  const outcome = answered({
    text: 'The swearing-in was on 1 July[1].',
    unanswered_parts: [{ part: 'the first meeting', notice: 'The documents do not mention the first meeting.' }],
  });
  expect(renderAnswer(outcome).slice(0, 3)).toEqual(['The swearing-in was on 1 July[1].', 'The documents do not mention the first meeting.', '']);
});
