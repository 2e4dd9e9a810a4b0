import { buildComplexityPrompt, COMPLEXITY_PROMPT_TEMPLATE } from '../../../core/prompts/complexity-prompt';
import { buildGraderPrompt, GRADER_PROMPT_TEMPLATE } from '../../../core/prompts/grader-prompt';
import { buildRewritePrompt, REWRITE_PROMPT_TEMPLATE } from '../../../core/prompts/rewrite-prompt';

// The exact prompt text is pinned here: a change to a prompt changes model behaviour and must show up in review.
// Wording: spec §7.1–§7.3 (intent and rubric quoted there, in Chinese like the original).

describe('prompt builders (spec §7: one user message, no system message)', () => {
  test('complexity planner prompt (spec §7.2)', () => {
    expect(buildComplexityPrompt('丹瑾和椿的技能有什么区别？')).toMatchInlineSnapshot(`
{
  "content": "你是一个问题复杂度规划器。请判断下面的用户问题是简单问题还是复杂问题。

判断标准：
- simple（简单问题）：事实查询、定义查询、单一信息点查询、明确的二选一问题、某个具体属性/参数/规格的查询。
- complex（复杂问题）：需要跨文档综合、多角度分析、比较对比、多步骤推理，或需要综合多个来源的信息才能回答。

输出要求：
- complexity：只能是 simple 或 complex。
- reason：用一句话说明判断理由。
- sub_questions：如果是复杂问题，给出 2-4 个互不重叠、可独立检索的子问题，每个子问题都应能单独拿去检索知识库；如果是简单问题，返回空列表。

用户问题：丹瑾和椿的技能有什么区别？",
  "role": "user",
}
`);
  });

  test('evidence grader prompt with the formatted context (spec §7.1, §4.4.2)', () => {
    const context = '[1] 角色.md (Page 1):\n丹瑾是湮灭属性角色。\n\n---\n\n[2] 武器.md (Page N/A):\n长刃。';
    expect(buildGraderPrompt('丹瑾是什么属性？', context)).toMatchInlineSnapshot(`
{
  "content": "你是 RAG 证据评分器。请只根据下面的检索片段，判断它们是否足以回答用户问题；不要补充检索片段以外的任何信息。

评分标准：
- relevance（相关性）：none 表示主题无关；weak 表示主题接近但证据薄弱；strong 表示明确切题。
- answerability（可回答性）：none 表示无法回答；partial 表示有部分线索，但不足以给出确定答案；sufficient 表示片段能直接或组合起来支持回答。
- ambiguity（歧义）：missing_slot 表示缺少关键条件，例如角色名、版本、文件类型、模块名、产品线；multiple_candidates 表示有多个候选方向都可能相关；none 表示没有明显歧义。
- route（路由）只能从以下五个中选择一个：
  - answer：相关性为 strong 且可回答性为 sufficient；
  - rewrite：存在相关信号，但可能因为问法、别名或泛化程度导致证据不足；
  - clarify：需要用户补充关键条件；
  - scope_select：有多个候选方向都相关，需要用户选择范围；
  - no_knowledge：没有召回内容，或主题无关。
- confidence：你对该判断的置信度，0 到 1 之间的小数。
- missing_slots：缺少的关键条件列表；没有则为空列表。
- 当 route 为 clarify 或 scope_select 时，请在 hitl_prompt 中给出向用户追问的问题，如有可能，在 hitl_options 中给出可供选择的选项；其他情况下 hitl_prompt 为空字符串，hitl_options 为空列表。
- reason：用一句话说明评分理由。

用户问题：丹瑾是什么属性？

检索片段：
[1] 角色.md (Page 1):
丹瑾是湮灭属性角色。

---

[2] 武器.md (Page N/A):
长刃。",
  "role": "user",
}
`);
  });

  test('rewrite planner prompt (spec §7.3)', () => {
    expect(buildRewritePrompt('丹瑾 1.2 版本的共鸣链第三层效果')).toMatchInlineSnapshot(`
{
  "content": "你是 RAG 查询重写规划器。第一次检索找到了相关信号，但证据不足。请在 step_back 和 hyde 中只选择一种方法，并生成该方法需要的文本。

方法选择：
- step_back：问题过于具体（包含实体名、型号、时间、条件或细节）时使用，把问题提升到更概括的概念、机制或原理，再用这个更概括的问题检索。
- hyde：问题模糊、概念性强，或缺少知识库常用术语时使用，先生成一段类似答案的假设性文档，再用它检索真实证据。

约束：
- 选择 step_back 时，只填写 step_back_question（不超过 300 个字符），hyde_document 为空字符串。
- 选择 hyde 时，只填写 hyde_document（不超过 1200 个字符），step_back_question 为空字符串。
- 假设性文档只是检索辅助，不是证据：不要编造引用或来源。

用户问题：丹瑾 1.2 版本的共鸣链第三层效果",
  "role": "user",
}
`);
  });

  test('each template carries the spec intent and exactly the placeholders it fills', () => {
    expect(COMPLEXITY_PROMPT_TEMPLATE).toMatch(/^你是一个问题复杂度规划器/);
    expect(GRADER_PROMPT_TEMPLATE).toMatch(/^你是 RAG 证据评分器/);
    expect(REWRITE_PROMPT_TEMPLATE).toMatch(/^你是 RAG 查询重写规划器/);
    const placeholders = (template: string) => template.match(/\{\w+\}/g);
    expect(placeholders(COMPLEXITY_PROMPT_TEMPLATE)).toEqual(['{question}']);
    expect(placeholders(GRADER_PROMPT_TEMPLATE)).toEqual(['{question}', '{context}']);
    expect(placeholders(REWRITE_PROMPT_TEMPLATE)).toEqual(['{question}']);
  });

  test('a question containing a placeholder is inserted verbatim, never re-expanded', () => {
    const { content } = buildGraderPrompt('what is {context}?', 'CTX $& $1');
    expect(content).toContain('用户问题：what is {context}?');
    expect(content.endsWith('检索片段：\nCTX $& $1')).toBe(true);
    expect(content.match(/CTX/g)).toHaveLength(1);
  });
});
