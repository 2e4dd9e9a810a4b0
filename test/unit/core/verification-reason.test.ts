import { verificationReason } from '../../../core/answer/citation-check-text';
import { placeMissingMarkers } from '../../../core/answer/place-markers';
import { verifyAnswer } from '../../../core/answer/verify-answer';

/*
 * Issue 43 §4: "citations not verified (the quotes could not be matched to the sources)" was printed for an answer
 * whose quote did match — its sentence lacked the [1] marker. The reason now comes from the verification itself.
 */

const page = 'git rebase --abort\n  Abort the rebase operation and reset HEAD to the original branch.\n\ngit rebase --continue\n  Restart the rebasing process after having resolved a merge conflict.';
const abortQuote = 'git rebase --abort\n  Abort the rebase operation and reset HEAD to the original branch.';

const verifiedReason = (answer: string, citations: { marker: number; doc_index: number; quote: string }[], documents = [page]) =>
  verificationReason(verifyAnswer(placeMissingMarkers({ answer, citations }, documents), documents));

describe('verificationReason', () => {
  test('a sentence whose quote matches but whose marker stands on a line of its own: placed, verified', () => {
    const draft = { answer: 'To stop the rebase and reset HEAD to the original branch, run `git rebase --abort`.\n\n[1]', citations: [{ marker: 1, doc_index: 1, quote: abortQuote }] };
    expect(verifyAnswer(draft, [page]).status).toBe('unverified');
    const placed = placeMissingMarkers(draft, [page]);
    expect(placed.answer).toBe('To stop the rebase and reset HEAD to the original branch, run `git rebase --abort`[1].\n\n[1]');
    expect(verifyAnswer(placed, [page])).toEqual({ status: 'verified', invalid_citations: [], uncited_sentences: [] });
    expect(verifiedReason(draft.answer, draft.citations)).toBe('every quote matches its source; this does not prove the answer right');
  });

  test('a sentence lacking its marker beside one that carries its own: its citation is placed, the answer verifies', () => {
    const answer = 'Run `git rebase --abort` to reset HEAD to the original branch. After resolving a merge conflict, restart the rebasing process with `git rebase --continue`[2].';
    const citations = [
      { marker: 1, doc_index: 1, quote: abortQuote },
      { marker: 2, doc_index: 1, quote: 'git rebase --continue\n  Restart the rebasing process after having resolved a merge conflict.' },
    ];
    const placed = placeMissingMarkers({ answer, citations }, [page]);
    expect(placed.answer).toBe('Run `git rebase --abort` to reset HEAD to the original branch[1]. After resolving a merge conflict, restart the rebasing process with `git rebase --continue`[2].');
    expect(verifyAnswer(placed, [page]).status).toBe('verified');
  });

  test('a sentence no quote backs stays uncited, and the reason says a sentence cites no source', () => {
    const answer = 'Run `git rebase --abort` to reset HEAD to the original branch[1]. Rsync 3.2.3 introduced --info=progress2.';
    expect(verifiedReason(answer, [{ marker: 1, doc_index: 1, quote: abortQuote }])).toBe('a sentence cites no source');
    // Its one sentence uncited: "not verified", for that reason and not "the quotes could not be matched".
    expect(verifiedReason('Rsync 3.2.3 introduced --info=progress2.', [])).toBe('a sentence cites no source');
  });

  test('a quote not in its document, an unknown document and a marker without a citation are each named', () => {
    const answer = 'Run `git rebase --abort` to reset HEAD[1]. Use --skip to skip a patch[2]. It works offline[3].';
    const citations = [
      { marker: 1, doc_index: 1, quote: abortQuote },
      { marker: 2, doc_index: 1, quote: 'git rebase --skip skips the current patch' },
      { marker: 4, doc_index: 7, quote: 'offline' },
    ];
    expect(verifiedReason(answer, citations)).toBe(
      '2 sentences cite no source; the quote of [2] could not be matched to its source; [4] cites a document not in the evidence; the marker [3] has no citation in the list (invalid marker)',
    );
  });

  test('an empty answer: no sentence cites a source', () => {
    expect(verificationReason(verifyAnswer({ answer: '', citations: [] }, [page]))).toBe('the answer has no sentence that cites a source');
  });
});

test('a long sentence that holds its short quote whole takes its marker', () => {
  const answer = 'If you want to stop the rebase and go back to where you were before it started, run `git rebase --abort`.';
  const placed = placeMissingMarkers({ answer, citations: [{ marker: 1, doc_index: 1, quote: 'git rebase --abort' }] }, [page]);
  expect(placed.answer).toBe('If you want to stop the rebase and go back to where you were before it started, run `git rebase --abort`[1].');
  expect(verifyAnswer(placed, [page]).status).toBe('verified');
});
