import { createOfflineChatModels } from '../../../activities/adapters/offline-chat-models';
import { writeVerifiedAnswer } from '../../../activities/answer-writer';
import { RagAnswer } from '../../../core/schemas/answer';

// Issue 42 §5: a question of two parts whose second part no evidence answers — the answer says which part, in the
// outcome (`unanswered_parts`), not only in the extractive draft. The offline answerer by words (no embedding model).
test('the answer node keeps the parts no evidence answers, and the answer still verifies', async () => {
  const docs = [{ filename: 'council.md', doc_id: 'council.md', text: 'The swearing-in of the new council took place on 5 May 2024. It was public.' }];
  const answer = RagAnswer.parse(
    await writeVerifiedAnswer(createOfflineChatModels(), { question: 'When were the swearing-in and the first meeting?', docs }, 1, () => 0),
  );
  expect(answer.text).toContain('5 May 2024');
  expect(answer.verification.status).toBe('verified');
  expect(answer.unanswered_parts).toEqual([{ part: 'the first meeting', notice: 'The documents do not mention the first meeting.' }]);
});
