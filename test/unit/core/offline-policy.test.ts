import { offlineGrade, type EvidenceSignal } from '../../../core/offline-policy/grade-policy';
import { offlinePlan } from '../../../core/offline-policy/plan-policy';
import { offlineRewrite } from '../../../core/offline-policy/rewrite-policy';
import { coverage, topicTerms, unresolvedSlot } from '../../../core/offline-policy/text-signals';
import { resolveRoute } from '../../../core/graph/resolve-route';
import { ComplexityResult, EvidenceGrade, RewritePlan } from '../../../core/schemas/model-outputs';

// Tokens as jieba's cutForSearch (HMM on) gives them; hard-coded so this test needs no tokenizer.
const T = {
  whichRole: ['这个', '角色', '的', '属性', '是', '什么', '？'],
  resetPassword: ['如何', '重置', '密码', '？'],
  auroraReset: ['Aurora', ' ', '如何', '重置', '密码', '？'],
  quantum: ['量子', '计算机', '的', '散热', '方案', '？'],
};
const aurora: EvidenceSignal = { filename: 'Aurora路由器手册.md', title: 'Aurora路由器手册', text: 'Aurora 重置密码：长按 reset 键 10 秒。' };
const nimbus: EvidenceSignal = { filename: 'Nimbus摄像头手册.md', title: 'Nimbus摄像头手册', text: 'Nimbus 重置密码：在 App 中选择设备。' };

describe('offline policy: text signals', () => {
  test('topic terms drop stopwords, question words, reference words and punctuation', () => {
    expect(topicTerms(T.whichRole)).toEqual(['角色', '属性']);
    expect(topicTerms(['What', 'is', 'the', 'BM25', 'index', '?'])).toEqual(['bm25', 'index']);
  });

  test('coverage is the share of terms found in the text, case-insensitive', () => {
    expect(coverage(['aurora', '重置', '密码'], aurora.text)).toBe(1);
    expect(coverage(['aurora', '重置', '密码'], nimbus.text)).toBeCloseTo(2 / 3);
    expect(coverage([], 'x')).toBe(0);
  });

  test('a reference with no named subject leaves a slot open; naming one closes it', () => {
    expect(unresolvedSlot(T.whichRole, topicTerms(T.whichRole))).toBe('角色名');
    const named = ['丹瑾', '这个', '属性'];
    expect(unresolvedSlot(named, topicTerms(named))).toBeNull();
    expect(unresolvedSlot(T.resetPassword, topicTerms(T.resetPassword))).toBeNull();
  });
});

describe('offline policy: grader (docs/offline-policy.md)', () => {
  const routeOf = (grade: EvidenceGrade, rewriteCount = 0) =>
    resolveRoute(grade, { hasDocs: true, rewriteCount, isSubAgent: false });

  test('answer: one document covers every question term', () => {
    const grade = EvidenceGrade.parse(offlineGrade({ questionTokens: T.auroraReset, evidence: [aurora, nimbus] }));
    expect([grade.relevance, grade.answerability, grade.route, routeOf(grade)]).toEqual(['strong', 'sufficient', 'answer', 'answer']);
  });

  test('scope_select: two documents answer equally well, offered by title', () => {
    const grade = EvidenceGrade.parse(offlineGrade({ questionTokens: T.resetPassword, evidence: [aurora, nimbus] }));
    expect(grade.ambiguity).toBe('multiple_candidates');
    expect(grade.hitl_options).toEqual(['Aurora路由器手册', 'Nimbus摄像头手册']);
    expect(routeOf(grade)).toBe('scope_select');
  });

  test('clarify: "这个角色" names no role', () => {
    const grade = EvidenceGrade.parse(offlineGrade({ questionTokens: T.whichRole, evidence: [{ filename: 'a.md', title: 'a', text: '丹瑾的属性是虚数' }] }));
    expect([grade.ambiguity, grade.missing_slots, routeOf(grade)]).toEqual(['missing_slot', ['角色名'], 'clarify']);
  });

  test('no_knowledge: the evidence shares almost nothing with the question', () => {
    const grade = EvidenceGrade.parse(offlineGrade({ questionTokens: T.quantum, evidence: [aurora] }));
    expect([grade.relevance, routeOf(grade)]).toEqual(['none', 'no_knowledge']);
  });

  test('rewrite, then clarify once the budget is spent: partial coverage', () => {
    const tokens = ['Aurora', '的', '访客', '网络', '密码', '？'];
    const grade = EvidenceGrade.parse(offlineGrade({ questionTokens: tokens, evidence: [aurora] }));
    expect([grade.answerability, grade.route]).toEqual(['partial', 'rewrite']);
    expect(routeOf(grade, 0)).toBe('rewrite');
    expect(routeOf(grade, 1)).toBe('clarify');
  });

  test('no evidence → no_knowledge', () => {
    expect(offlineGrade({ questionTokens: T.resetPassword, evidence: [] }).route).toBe('no_knowledge');
  });
});

describe('offline policy: planner', () => {
  test.each([
    ['比较丹瑾与卡卡罗的战斗定位', ['丹瑾的战斗定位', '卡卡罗的战斗定位']],
    ['Aurora 和 Nimbus 的价格区别', ['Aurora的价格', 'Nimbus的价格']],
    ['对比 Aurora 与 Nimbus', ['Aurora是什么', 'Nimbus是什么']],
    ['Compare Aurora and Nimbus in terms of price', ['What is the price of Aurora?', 'What is the price of Nimbus?']],
    ['Aurora 支持哪些协议？另外 Nimbus 的保修期多久？', ['Aurora 支持哪些协议', 'Nimbus 的保修期多久？']],
  ])('%s → complex %j', (question, subQuestions) => {
    expect(ComplexityResult.parse(offlinePlan(question))).toMatchObject({ complexity: 'complex', sub_questions: subQuestions });
  });

  test.each(['请介绍一下这个系统的整体部署架构设计思路', '如何重置密码？', 'Aurora 与 Nimbus'])('%s → simple', (question) => {
    expect(offlinePlan(question)).toMatchObject({ complexity: 'simple', sub_questions: [] });
  });
});

describe('offline policy: rewriter', () => {
  test('always a step-back question from the topic terms, within the schema', () => {
    const plan = RewritePlan.parse(offlineRewrite('Aurora 的访客网络密码？', ['Aurora', '的', '访客', '网络', '密码', '？']));
    expect(plan).toEqual({ method: 'step_back', step_back_question: 'aurora访客网络密码的基本概念、原理和相关说明是什么？', hyde_document: '' });
    expect(offlineRewrite('guest network password?', ['guest', 'network', 'password', '?']).step_back_question).toBe(
      'What is the general background of guest network password?',
    );
  });
});

test('clarify: "这款产品" (jieba: 这 + 款 + 产品) names no product', () => {
  const tokens = ['这', '款', '产品', '的', '价格', '是', '多少', '？'];
  const evidence = [
    { filename: 'Aurora X2 路由器.md', title: 'Aurora X2 路由器', text: 'Aurora X2 路由器的产品价格为 399 元' },
    { filename: 'Nimbus C1 摄像头.md', title: 'Nimbus C1 摄像头', text: 'Nimbus C1 摄像头的产品价格为 299 元' },
  ];
  const grade = offlineGrade({ questionTokens: tokens, evidence });
  expect([grade.route, grade.missing_slots]).toEqual(['clarify', ['产品型号']]);
});
