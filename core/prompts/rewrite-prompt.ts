import { HYDE_DOCUMENT_MAX, STEP_BACK_QUESTION_MAX } from '../schemas/model-outputs';
import { fillTemplate, type UserMessage } from './user-message';

/**
 * spec §7.3: the query-rewrite planner's prompt (FAST_MODEL, temperature 0, structured output `rewrite_plan`).
 * One combined prompt and one call: the model picks step_back or hyde. The length limits are the schema's
 * (spec §7.3), stated so the model can keep to them.
 */
export const REWRITE_PROMPT_TEMPLATE = `你是 RAG 查询重写规划器。第一次检索找到了相关信号，但证据不足。请在 step_back 和 hyde 中只选择一种方法，并生成该方法需要的文本。

方法选择：
- step_back：问题过于具体（包含实体名、型号、时间、条件或细节）时使用，把问题提升到更概括的概念、机制或原理，再用这个更概括的问题检索。
- hyde：问题模糊、概念性强，或缺少知识库常用术语时使用，先生成一段类似答案的假设性文档，再用它检索真实证据。

约束：
- 选择 step_back 时，只填写 step_back_question（不超过 ${STEP_BACK_QUESTION_MAX} 个字符），hyde_document 为空字符串。
- 选择 hyde 时，只填写 hyde_document（不超过 ${HYDE_DOCUMENT_MAX} 个字符），step_back_question 为空字符串。
- 假设性文档只是检索辅助，不是证据：不要编造引用或来源。

用户问题：{question}`;

/** The single user message of the rewrite planner call (spec §4.7.1). */
export function buildRewritePrompt(question: string): UserMessage {
  return fillTemplate(REWRITE_PROMPT_TEMPLATE, { question });
}
