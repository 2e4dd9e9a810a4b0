import { createOfflineChatModels, gradeInput } from '../../../activities/adapters/offline-chat-models';
import { AnswerDraft } from '../../../core/schemas/answer';
import { EvidenceGrade, RewritePlan } from '../../../core/schemas/model-outputs';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';

// The offline provider with the real jieba (a library, not a service): precise-mode words, its IDF table, titles.
const models = createOfflineChatModels();
const chunk = (filename: string, text: string): Chunk => ({ filename, text });

describe('offline policy v2 with jieba', () => {
  test('the step-back rewrite reads: no overlapping search-mode fragments', async () => {
    const plan = RewritePlan.parse(await models.planRewrite('量子计算机的散热怎么做？'));
    expect(plan.step_back_question).toBe('量子计算机散热的基本概念、原理和相关说明是什么？');
    const award = RewritePlan.parse(await models.planRewrite('哪部电影获得了百花奖最佳影片奖？'));
    expect(award.step_back_question).not.toMatch(/百花百花|影片影片/);
  });

  test('terms are weighted by IDF: a rare name outweighs a common verb', () => {
    const { terms } = gradeInput('硼砂的分子式是什么？', []);
    expect(terms.map((t) => t.term)).toEqual(['硼砂', '分子式']);
    expect(terms[0]!.weight).toBeGreaterThan(10);
  });

  test('a bare digit is not found inside a larger number; 年 and 月 are not topic terms', async () => {
    const { terms } = gradeInput('8月发生了什么？', []);
    expect(terms.map((t) => t.term)).toEqual(['8', '发生']);
    const grade = EvidenceGrade.parse(await models.gradeEvidence('8月发生了什么？', '', [chunk('a.txt', '2018年12月28日发生了地震。')]));
    expect(grade.route).not.toBe('answer');
  });

  test('agreeing sources are answered; products the question does not pick between are a choice', async () => {
    const text = '硼砂的分子式为Na2B4O7·10H2O，是一种含结晶水的硼酸盐。它常用作清洁剂。';
    const agree = await models.gradeEvidence('硼砂的分子式是什么？', '', [chunk('DEV_1.txt', text), chunk('DEV_1-second-source.txt', `资料汇编：硼砂\n\n它常用作清洁剂。${text.split('。')[0]}。`)]);
    expect(EvidenceGrade.parse(agree).route).toBe('answer');
    const choose = await models.gradeEvidence('如何重置密码？', '', [
      chunk('Aurora路由器手册.md', 'Aurora 路由器重置密码：长按 reset 键 10 秒。'),
      chunk('Nimbus摄像头手册.md', 'Nimbus 摄像头重置密码：在 App 中选择设备后点击重置。'),
    ]);
    expect(EvidenceGrade.parse(choose)).toMatchObject({ route: 'scope_select', hitl_options: ['Aurora路由器手册', 'Nimbus摄像头手册'] });
  });

  // Issue 32 §3: the English manual questions of the issue (the grade and the sentence chosen to answer).
  const zephyr = chunk(
    'Zephyr K7 manual.md',
    '# Zephyr K7 manual\n\nThe Zephyr K7 is a portable blender with a 600 ml cup. The Zephyr K7 costs 89 euros. It supports Bluetooth 5.3 for the recipe app.\n\n' +
      'Pairing: hold the power button for 5 seconds until the light flashes blue, then choose Zephyr K7 in the app.',
  );

  test('English: "How much does the Zephyr K7 cost?" over "costs 89 euros" is answered, with the price sentence', async () => {
    const { terms } = gradeInput('How much does the Zephyr K7 cost?', [zephyr]);
    expect(terms.map((t) => t.term)).toEqual(['zephyr', 'k7', 'cost']);
    expect(EvidenceGrade.parse(await models.gradeEvidence('How much does the Zephyr K7 cost?', '', [zephyr])).route).toBe('answer');
    const draft = AnswerDraft.parse(await models.writeAnswer({ question: 'How much does the Zephyr K7 cost?', context: '', evidence: [zephyr] }));
    expect(draft.answer).toContain('89 euros');
    expect(draft.answer).not.toContain('600 ml');
  });

  test('English: "How do I pair the Zephyr K7?" is answered with the pairing steps, not the Bluetooth sentence', async () => {
    expect(EvidenceGrade.parse(await models.gradeEvidence('How do I pair the Zephyr K7?', '', [zephyr])).route).toBe('answer');
    const draft = AnswerDraft.parse(await models.writeAnswer({ question: 'How do I pair the Zephyr K7?', context: '', evidence: [zephyr] }));
    expect(draft.answer).toContain('hold the power button for 5 seconds');
    expect(draft.answer).not.toContain('Bluetooth 5.3');
  });
});
