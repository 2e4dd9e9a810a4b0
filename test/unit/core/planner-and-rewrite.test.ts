import { RagError } from '../../../core/errors';
import { HYDE_MARKER, HYDE_MARKER_EN, STEP_BACK_MARKER, STEP_BACK_MARKER_EN, composeRewrite } from '../../../core/graph/compose-rewrite';
import { cleanComplexityResult } from '../../../core/graph/plan-complexity';
import { ComplexityResult, RewritePlan } from '../../../core/schemas/model-outputs';

describe('complexity planner post-processing (spec §4.2 steps 5–8)', () => {
  test('T25 complex with only blank sub-questions fails, naming the cause', () => {
    const plan = ComplexityResult.parse({ complexity: 'complex', reason: 'r', sub_questions: ['', '  '] });
    expect(() => cleanComplexityResult(plan)).toThrow(new RagError('PLANNER_NO_SUB_QUESTIONS', 'Complexity planner returned no sub-questions'));
  });

  test('T26 a single sub-question is accepted', () => {
    const plan = ComplexityResult.parse({ complexity: 'complex', reason: 'r', sub_questions: ['only one'] });
    expect(cleanComplexityResult(plan)).toEqual({ complexity: 'complex', complexityReason: 'r', subQuestions: ['only one'] });
  });

  test('T03 a simple plan writes an empty sub-question list', () => {
    const plan = ComplexityResult.parse({ complexity: 'simple', reason: ' 单一事实查询 ', sub_questions: ['ignored'] });
    expect(cleanComplexityResult(plan)).toEqual({ complexity: 'simple', complexityReason: '单一事实查询', subQuestions: [] });
  });

  test('sub-questions are trimmed, blanks dropped', () => {
    const plan = ComplexityResult.parse({ complexity: 'complex', sub_questions: [' a ', '', 'b', ' \n'] });
    expect(cleanComplexityResult(plan).subQuestions).toEqual(['a', 'b']);
  });

  test('the schema rejects more than 4 sub-questions and unknown complexity (spec §7.2)', () => {
    expect(ComplexityResult.safeParse({ complexity: 'complex', sub_questions: ['1', '2', '3', '4', '5'] }).success).toBe(false);
    expect(ComplexityResult.safeParse({ complexity: 'medium' }).success).toBe(false);
    expect(ComplexityResult.parse({ complexity: 'simple' })).toEqual({ complexity: 'simple', reason: '', sub_questions: [] });
  });
});

describe('query rewrite composition (spec §4.7.1)', () => {
  const question = '丹瑾是什么属性？';

  test('T09 step-back: question + blank line + 退步问题： + the step-back question', () => {
    const rewrite = composeRewrite(question, RewritePlan.parse({ method: 'step_back', step_back_question: ' 角色属性体系是什么？ ' }));
    expect(rewrite).toEqual({
      rewrite_method: 'step_back',
      rewritten_query: '丹瑾是什么属性？\n\n退步问题：角色属性体系是什么？',
      step_back_question: '角色属性体系是什么？',
      hyde_document: '',
    });
    expect(STEP_BACK_MARKER).toBe('\n\n退步问题：');
  });

  test('T10 HyDE: question + blank line + 假设性答案文档： + the passage', () => {
    const rewrite = composeRewrite(question, RewritePlan.parse({ method: 'hyde', hyde_document: '丹瑾是一名湮灭属性角色……' }));
    expect(rewrite.rewritten_query).toBe('丹瑾是什么属性？\n\n假设性答案文档：丹瑾是一名湮灭属性角色……');
    expect(rewrite.step_back_question).toBe('');
    expect(HYDE_MARKER).toBe('\n\n假设性答案文档：');
  });

  // Issue 42 §6: an English question's rewrite read "What is the general background of … 退步问题：…".
  test('an English question gets the markers in English: "Step-back question: ", "Hypothetical answer document: "', () => {
    const english = 'What does the guest network password protect?';
    const stepBack = composeRewrite(english, RewritePlan.parse({ method: 'step_back', step_back_question: 'What is the general background of guest network password?' }));
    expect(stepBack.rewritten_query).toBe(`${english}\n\nStep-back question: What is the general background of guest network password?`);
    const hyde = composeRewrite(english, RewritePlan.parse({ method: 'hyde', hyde_document: 'The guest network password protects the guest network.' }));
    expect(hyde.rewritten_query).toBe(`${english}\n\nHypothetical answer document: The guest network password protects the guest network.`);
    expect([STEP_BACK_MARKER_EN, HYDE_MARKER_EN]).toEqual(['\n\nStep-back question: ', '\n\nHypothetical answer document: ']);
  });

  test('a question with Chinese in it keeps the spec\'s Chinese markers, whatever the rewrite text is written in', () => {
    const mixed = composeRewrite('Aurora 的访客网络密码？', RewritePlan.parse({ method: 'step_back', step_back_question: 'Aurora guest network' }));
    expect(mixed.rewritten_query).toBe('Aurora 的访客网络密码？\n\n退步问题：Aurora guest network');
  });

  test.each([
    ['step_back without text', { method: 'step_back', step_back_question: '  ' }],
    ['step_back with a HyDE passage too', { method: 'step_back', step_back_question: 's', hyde_document: 'h' }],
    ['hyde without text', { method: 'hyde' }],
    ['hyde with a step-back question too', { method: 'hyde', step_back_question: 's', hyde_document: 'h' }],
  ])('an inconsistent plan (%s) is REWRITE_INCOMPLETE', (_name, plan) => {
    expect(() => composeRewrite(question, RewritePlan.parse(plan))).toThrow(RagError);
  });

  test('the schema caps step-back at 300 and HyDE at 1200 characters (spec §7.3)', () => {
    expect(RewritePlan.safeParse({ method: 'step_back', step_back_question: 'x'.repeat(301) }).success).toBe(false);
    expect(RewritePlan.safeParse({ method: 'hyde', hyde_document: 'x'.repeat(1201) }).success).toBe(false);
    expect(RewritePlan.safeParse({ method: 'hyde', hyde_document: 'x'.repeat(1200) }).success).toBe(true);
  });
});
