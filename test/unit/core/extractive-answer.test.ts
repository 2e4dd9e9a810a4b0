import { extractiveAnswer } from '../../../core/answer/extractive-answer';
import { verifyAnswer } from '../../../core/answer/verify-answer';

// Tokens as jieba's search mode gives them (the adapter tokenizes; the answerer is pure).
const tokens = (text: string): string[] => text.split(/\s+/).filter(Boolean);

describe('extractiveAnswer', () => {
  const documents = [
    'Nimbus C1 是一款室内摄像头。它支持最大 256GB 的 microSD 存储卡，并支持云存储。夜视距离为 10 米。',
    'Nimbus C2 是户外款。防水等级 IP66。',
  ];

  test('quotes the sentence that holds the question\'s terms, cited with itself, and always verifies', () => {
    const question = 'Nimbus C1 摄像头支持多大的存储卡？';
    const draft = extractiveAnswer(question, tokens('nimbus c1 摄像 摄像头 支持 多大 的 存储 存储卡 ？'), documents);
    expect(draft.answer).toContain('256GB');
    expect(draft.citations).toContainEqual({ marker: expect.any(Number), doc_index: 1, quote: '它支持最大 256GB 的 microSD 存储卡，并支持云存储。' });
    expect(draft.citations.length).toBeLessThanOrEqual(3);
    expect(verifyAnswer(draft, documents).status).toBe('verified');
  });

  test('keeps reading order and numbers markers in it', () => {
    const draft = extractiveAnswer('IP66 防水 的 是 哪款', tokens('ip66 防水 的 是 哪款'), documents);
    expect(draft.citations.map((citation) => citation.doc_index)).toEqual([...draft.citations.map((c) => c.doc_index)].sort());
    expect(draft.citations.map((citation) => citation.marker)).toEqual(draft.citations.map((_, i) => i + 1));
    expect(draft.answer).toContain('IP66');
    expect(verifyAnswer(draft, documents).status).toBe('verified');
  });

  test('English questions get English sentence ends; no evidence gives an empty draft', () => {
    const draft = extractiveAnswer('How far does night vision reach?', tokens('night vision reach'), ['Night vision reaches 10 m. It records 2K video.']);
    expect(draft.answer).toBe('Night vision reaches 10 m[1].');
    expect(extractiveAnswer('q', tokens('q'), [])).toEqual({ answer: '', citations: [] });
  });
});
