import { answerOfDraft } from '../../../core/answer/answer-of-draft';
import { hasContent, markersOf, splitSentences } from '../../../core/answer/sentences';
import { normalizeForMatch, quoteOccursIn, verifyAnswer } from '../../../core/answer/verify-answer';

// The evidence of the hand-made cases: two product pages as ingestion would store them.
const DOCS = [
  'Nimbus C1 摄像头支持最大 256GB 的 microSD 存储卡。夜视距离为 10 米。',
  'Aurora X2 路由器提供两年保修（自购买之日起）。保修不含人为损坏.',
];

describe('splitSentences', () => {
  test('ends at Chinese and English terminators; markers after the end belong to the sentence before', () => {
    expect(splitSentences('支持 256GB。[1]夜视 10 米[2]！Version 2.5 works. Next one?[3][4]\nlast line')).toEqual([
      '支持 256GB。[1]',
      '夜视 10 米[2]！',
      'Version 2.5 works.',
      'Next one?[3][4]',
      'last line',
    ]);
  });

  test('markers and content', () => {
    expect(markersOf('a [2] b [1][2]')).toEqual([2, 1]);
    expect(hasContent('[1]。')).toBe(false);
    expect(hasContent('256GB[1]')).toBe(true);
  });
});

describe('verifyAnswer', () => {
  test('a good answer: every sentence cited, every quote in its document → verified', () => {
    const verification = verifyAnswer(
      {
        answer: 'Nimbus C1 最大支持 256GB 的存储卡[1]。Aurora X2 保修两年[2]。',
        citations: [
          { marker: 1, doc_index: 1, quote: '支持最大 256GB 的 microSD 存储卡' },
          { marker: 2, doc_index: 2, quote: '提供两年保修' },
        ],
      },
      DOCS,
    );
    expect(verification).toEqual({ status: 'verified', invalid_citations: [], uncited_sentences: [] });
  });

  test('a marker without a citation entry, and one naming a document that does not exist', () => {
    const verification = verifyAnswer(
      {
        answer: '最大 256GB[1]。保修两年[3]。夜视 10 米[2]。',
        citations: [
          { marker: 1, doc_index: 1, quote: '最大 256GB' },
          { marker: 2, doc_index: 7, quote: '夜视距离为 10 米' },
        ],
      },
      DOCS,
    );
    expect(verification.status).toBe('partially_verified');
    expect(verification.invalid_citations).toEqual([
      { marker: 2, doc_index: 7, reason: 'unknown_document' },
      { marker: 3, doc_index: null, reason: 'missing_citation' },
    ]);
    expect(verification.uncited_sentences).toEqual(['保修两年[3]。', '夜视 10 米[2]。']);
  });

  test('a quote that is not in its document (a paraphrase) does not hold', () => {
    const verification = verifyAnswer(
      { answer: '支持 512GB 存储卡[1]。', citations: [{ marker: 1, doc_index: 1, quote: '支持最大 512GB 的存储卡' }] },
      DOCS,
    );
    expect(verification).toEqual({
      status: 'unverified',
      invalid_citations: [{ marker: 1, doc_index: 1, reason: 'quote_not_found' }],
      uncited_sentences: ['支持 512GB 存储卡[1]。'],
    });
  });

  test('an uncited sentence makes the answer partially verified', () => {
    const verification = verifyAnswer(
      { answer: '最大 256GB[1]。这是一款很受欢迎的摄像头。', citations: [{ marker: 1, doc_index: 1, quote: '最大 256GB' }] },
      DOCS,
    );
    expect(verification).toEqual({ status: 'partially_verified', invalid_citations: [], uncited_sentences: ['这是一款很受欢迎的摄像头。'] });
  });

  test('punctuation and width differences and white space do not matter', () => {
    // Full-width parentheses in the document, half-width in the quote; full-width digits and letters; a full stop
    // written as "." where the document has "。"; white space moved around.
    expect(quoteOccursIn('两年保修(自购买之日起)', DOCS[1] as string)).toBe(true);
    expect(quoteOccursIn('最大２５６ＧＢ的 micro SD', DOCS[0] as string)).toBe(true);
    expect(quoteOccursIn('存储卡.夜视距离', DOCS[0] as string)).toBe(true);
    expect(quoteOccursIn('保修不含人为损坏。', DOCS[1] as string)).toBe(true);
    expect(normalizeForMatch('「Ａ」， b')).toBe('"a",b');
    expect(quoteOccursIn('三年保修', DOCS[1] as string)).toBe(false);
  });

  test('an empty quote and an empty answer', () => {
    expect(verifyAnswer({ answer: '最大 256GB[1]。', citations: [{ marker: 1, doc_index: 1, quote: '  ' }] }, DOCS).invalid_citations).toEqual([
      { marker: 1, doc_index: 1, reason: 'empty_quote' },
    ]);
    expect(verifyAnswer({ answer: '', citations: [] }, DOCS).status).toBe('unverified');
  });

  test('a marker listed twice holds when one of its entries does', () => {
    const verification = verifyAnswer(
      {
        answer: '最大 256GB[1]。',
        citations: [
          { marker: 1, doc_index: 2, quote: '最大 256GB' },
          { marker: 1, doc_index: 1, quote: '最大 256GB' },
        ],
      },
      DOCS,
    );
    expect(verification.status).toBe('verified');
  });
});

describe('answerOfDraft', () => {
  test('citations carry the cited chunk; those naming no document are left out (the verification names them)', () => {
    const docs = [
      { chunk_id: 'c1', filename: 'nimbus.md', page_number: 1, text: DOCS[0] },
      { id: 42, filename: 'aurora.md', text: DOCS[1] },
    ];
    const draft = {
      answer: ' 最大 256GB[2]。保修两年[1]。多余[3]。 ',
      citations: [
        { marker: 2, doc_index: 1, quote: '最大 256GB' },
        { marker: 1, doc_index: 2, quote: '两年保修' },
        { marker: 3, doc_index: 9, quote: 'x' },
      ],
    };
    const answer = answerOfDraft(draft, docs, verifyAnswer(draft, DOCS), { model: 'm', durationMs: 12.4, repairAttempted: false });
    expect(answer.text).toBe('最大 256GB[2]。保修两年[1]。多余[3]。');
    expect(answer.citations).toEqual([
      { marker: 1, doc_index: 2, chunk_id: '42', filename: 'aurora.md', page_number: null, quote: '两年保修' },
      { marker: 2, doc_index: 1, chunk_id: 'c1', filename: 'nimbus.md', page_number: 1, quote: '最大 256GB' },
    ]);
    expect(answer.duration_ms).toBe(12);
    expect(answer.verification.status).toBe('partially_verified');
  });
});
