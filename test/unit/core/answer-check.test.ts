import { answerOfDraft } from '../../../core/answer/answer-of-draft';
import { answerCheckAction, applyAnswerCheck, checkAnswer, MIN_CLAIM_OVERLAP, numericWarnings, unsupportedClaims } from '../../../core/answer/answer-check';
import { NO_KNOWLEDGE_TEXT_ZH } from '../../../core/answer/no-knowledge-text';
import { checkTokens, hanNumeralValue } from '../../../core/answer/numeric-tokens';
import { verifyAnswer } from '../../../core/answer/verify-answer';
import { answerWrittenEvent } from '../../../core/audit/diagnosis-events';
import { parseConfig } from '../../../core/config';
import { RagAnswer } from '../../../core/schemas/answer';

// The evidence: samples/knowledge's two product manuals, one sentence each (the numbers are theirs).
const DOCS = ['Aurora X2 路由器提供 2 年保修，保修期自购买之日起计算。Aurora X2 路由器的产品价格为 399 元。', 'Nimbus C1 摄像头支持最大 256GB 的 microSD 卡，也可以开通云存储，录像保存 7 天。'];
const tokens = (text: string) => checkTokens(text).map((token) => `${token.kind}:${token.canonical}`);

describe('checkTokens: numbers, quantities, dates and model names in one canonical form (issue 26 §4)', () => {
  test('width, thousands separators, simple Chinese numerals and unit aliases fold away', () => {
    expect(tokens('２５６ＧＢ，1,299 元，两年，十五秒，10 秒，5000mAh，20W，50%')).toEqual([
      'quantity:256gb', 'quantity:1299元', 'quantity:2年', 'quantity:15s', 'quantity:10s', 'quantity:5000mah', 'quantity:20w', 'quantity:50%',
    ]);
    expect([hanNumeralValue('一百二十'), hanNumeralValue('二〇二四'), hanNumeralValue('十五'), hanNumeralValue('三万五千')]).toEqual([120, 2024, 15, 35000]);
  });

  test('dates in their ISO form, however written; model names without separators; citation markers are not numbers', () => {
    expect(tokens('2024-05-01，２０２４年５月１日，2024/5/1，2024年5月，5月1日，2024年[3]')).toEqual([
      'date:2024-05-01', 'date:2024-05-01', 'date:2024-05-01', 'date:2024-05', 'date:05-01', 'date:2024',
    ]);
    expect(tokens('RTX4090、AX3000、Aurora X2、RTX-4090 与 Wi-Fi 6，Orbit CLI 2.1 drops Node.js 16; 3-5 天')).toEqual([
      'model_name:rtx4090', 'model_name:ax3000', 'model_name:x2', 'model_name:rtx4090', 'number:6', 'number:2.1', 'number:16', 'quantity:3天', 'quantity:5天',
    ]);
    expect(checkTokens('保修 2 年[1]')[0]?.surface).toBe('2 年');
  });
});

describe('numericWarnings', () => {
  const held = [{ marker: 1, quote: 'Aurora X2 路由器提供 2 年保修' }];
  test('a number the quote does not hold is flagged with its sentence; the same number written otherwise is not', () => {
    expect(numericWarnings('Aurora X2 保修 3 年[1]。', held, 'Aurora X2 保修多久？')).toEqual([
      { token: '3 年', kind: 'quantity', sentence: 'Aurora X2 保修 3 年[1]。', reason: 'not_in_quotes' },
    ]);
    expect(numericWarnings('Aurora X2 保修两年[1]。', held, 'Aurora X2 保修多久？')).toEqual([]);
    expect(numericWarnings('Aurora X2 保修２年[1]。', held, '')).toEqual([]);
  });

  test('a quoted value with another unit is a unit_mismatch; a model name only the question holds is not flagged', () => {
    const quote = [{ marker: 1, quote: '支持最大 256GB 的 microSD 卡' }];
    expect(numericWarnings('最大 256MB[1]。', quote, '')).toMatchObject([{ token: '256MB', reason: 'unit_mismatch' }]);
    expect(numericWarnings('Nimbus C1 最大支持 256GB[1]。', quote, 'Nimbus C1 支持多大的存储卡？')).toEqual([]);
    expect(numericWarnings('Nimbus C2 最大支持 256GB[1]。', quote, 'Nimbus C1 支持多大的存储卡？')).toMatchObject([{ token: 'C2', kind: 'model_name' }]);
  });

  test('dates: a less precise date is held by a more precise one; list numbers are not checked; no valid quote at all', () => {
    const quote = [{ marker: 1, quote: '固件于 2024年5月1日 发布' }];
    expect(numericWarnings('固件于 2024-05 发布[1]。', quote, '')).toEqual([]);
    expect(numericWarnings('固件于 2024年6月1日发布[1]。', quote, '')).toMatchObject([{ token: '2024年6月1日', kind: 'date' }]);
    expect(numericWarnings('1. 固件于 2024年5月1日 发布[1]。', quote, '')).toEqual([]);
    expect(numericWarnings('保修 2 年。', [], '')).toMatchObject([{ token: '2 年', reason: 'no_cited_quote' }]);
  });
});

describe('unsupportedClaims', () => {
  test(`a cited sentence whose words its quotes barely hold (overlap < ${MIN_CLAIM_OVERLAP}); the question's words do not count`, () => {
    const held = [{ marker: 1, quote: 'Aurora X2 路由器提供 2 年保修，保修期自购买之日起计算' }];
    expect(unsupportedClaims('Aurora X2 支持 Mesh 组网和 Wi-Fi 7[1]。', held, 'Aurora X2 保修多久？')).toEqual([
      { sentence: 'Aurora X2 支持 Mesh 组网和 Wi-Fi 7[1]。', overlap: 0 },
    ]);
    // A paraphrase shares few bigrams but enough (保修, 修期, 购买 of 6): not flagged.
    expect(unsupportedClaims('保修期从购买那天开始算[1]。', held, '')).toEqual([]);
    // Uncited sentences are the citation check's (uncited_sentences), not claims.
    expect(unsupportedClaims('它支持 Mesh 组网。', held, '')).toEqual([]);
  });
});

describe('the action (ANSWER_CHECK_ACTION) and what refuse does to the answer', () => {
  const findings = { numeric_warnings: [{ token: '3 年', kind: 'quantity' as const, sentence: 's', reason: 'not_in_quotes' as const }], unsupported_claims: [] };
  test('allow reports, warn keeps, refuse withholds only on a numeric warning', () => {
    expect(answerCheckAction(findings, 'allow')).toBe('allow');
    expect(answerCheckAction(findings, 'warn')).toBe('warn');
    expect(answerCheckAction(findings, 'refuse')).toBe('refuse');
    expect(answerCheckAction({ numeric_warnings: [], unsupported_claims: [{ sentence: 's', overlap: 0 }] }, 'refuse')).toBe('warn');
    expect(checkAnswer('Aurora X2 保修 2 年[1]。', [{ marker: 1, quote: '提供 2 年保修' }], 'Aurora X2 保修多久？', 'refuse')).toBeNull();
  });

  test('verifyAnswer: a faithful answer keeps the verification shape of before; an invented number adds the findings', () => {
    const faithful = { answer: 'Aurora X2 保修两年[1]，价格 399 元[2]。', citations: [{ marker: 1, doc_index: 1, quote: '提供 2 年保修' }, { marker: 2, doc_index: 1, quote: '产品价格为 399 元' }] };
    expect(verifyAnswer(faithful, DOCS, { question: 'Aurora X2 保修多久？', action: 'warn' })).toEqual({ status: 'verified', invalid_citations: [], uncited_sentences: [] });
    const invented = { ...faithful, answer: 'Aurora X2 保修两年[1]，价格 499 元[2]。' };
    expect(verifyAnswer(invented, DOCS, { question: 'Aurora X2 保修多久？', action: 'warn' })).toEqual({
      status: 'verified', // the citations hold: the check never changes the status (nor, so, the repair rule)
      invalid_citations: [],
      uncited_sentences: [],
      numeric_warnings: [{ token: '499 元', kind: 'quantity', sentence: 'Aurora X2 保修两年[1]，价格 499 元[2]。', reason: 'not_in_quotes' }],
      unsupported_claims: [],
      action: 'warn',
    });
    // Without the check's options (older callers): the citation check only.
    expect(verifyAnswer(invented, DOCS)).toEqual({ status: 'verified', invalid_citations: [], uncited_sentences: [] });
  });

  test('refuse: the text becomes the no-knowledge sentence, the writer\'s text is kept in withheld_text, the citations stay', () => {
    const draft = { answer: 'Aurora X2 保修 3 年[1]。', citations: [{ marker: 1, doc_index: 1, quote: '提供 2 年保修' }] };
    const question = 'Aurora X2 保修多久？';
    const verification = verifyAnswer(draft, DOCS, { question, action: 'refuse' });
    const answer = applyAnswerCheck(answerOfDraft(draft, [{ text: DOCS[0] }], verification, { model: 'm', durationMs: 1, repairAttempted: false }), question);
    expect(RagAnswer.parse(answer)).toEqual(answer);
    expect(answer).toMatchObject({ text: NO_KNOWLEDGE_TEXT_ZH, withheld_text: draft.answer, verification: { status: 'verified', action: 'refuse' } });
    expect(answer.citations).toHaveLength(1);
    // Applying it again changes nothing (a repaired answer passes through the same function).
    expect(applyAnswerCheck(answer, question)).toEqual(answer);
  });

  test('ANSWER_CHECK_ACTION: warn by default, case-insensitive, a typo reported', () => {
    expect(parseConfig({}).answerCheck).toBe('warn');
    expect(parseConfig({ ANSWER_CHECK_ACTION: ' Refuse ' }).answerCheck).toBe('refuse');
    expect(parseConfig({ ANSWER_CHECK_ACTION: 'allow' }).answerCheck).toBe('allow');
    expect(() => parseConfig({ ANSWER_CHECK_ACTION: 'block' })).toThrow(
      'ANSWER_CHECK_ACTION="block" is not one of allow, warn, refuse: set one, or unset it to use the default warn',
    );
  });

  test('the audit event answer_written: the action and counts when the check had findings, nothing more otherwise', () => {
    const ids = { sessionId: 's', workflowId: 'w', runId: 'r' };
    const facts = { written: true as const, chars: 10, citations: 1, verification: 'verified', repairAttempted: false, model: 'm', durationMs: 5 };
    expect(answerWrittenEvent(ids, 0, { ...facts, answerCheck: {} }).detail).not.toHaveProperty('answer_check');
    expect(answerWrittenEvent(ids, 0, { ...facts, answerCheck: { action: 'refuse', numeric_warnings: findings.numeric_warnings, unsupported_claims: [] } }).detail).toMatchObject({
      answer_check: 'refuse',
      numeric_warnings: 1,
      unsupported_claims: 0,
    });
  });
});
