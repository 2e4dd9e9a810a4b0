import { renderAnswer } from '../../../cli/render/answer';
import { citationCheckText } from '../../../core/answer/citation-check-text';
import type { RagOutcome } from '../../../core/schemas/run-io';

/* Issue 33 §6: "verified" means the quotes match their sources, not that the answer is right; the grade's confidence stands beside it. */

test('the citation check says what it checked, with the grade confidence beside it', () => {
  expect(citationCheckText('verified', 0.8)).toBe('citations verified (every quote matches its source; this does not prove the answer right) · grade confidence 0.80');
  expect(citationCheckText('unverified', null)).toBe('citations not verified (the quotes could not be matched to the sources)');
});

test('ask prints "citations verified" and the confidence, never a bare "verified:"', () => {
  const outcome = {
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
    },
  } as unknown as RagOutcome;
  const text = renderAnswer(outcome).join('\n');
  expect(text).toContain('  citations verified (every quote matches its source; this does not prove the answer right) · grade confidence 0.90');
  expect(text).not.toMatch(/^ {2}verified:/m);
});
