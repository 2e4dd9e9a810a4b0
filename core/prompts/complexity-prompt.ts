import { fillTemplate, type UserMessage } from './user-message';

/**
 * spec §7.2: the complexity planner's prompt (FAST_MODEL, temperature 0, structured output `complexity_result`).
 * The definitions of simple and complex and the "2–4 互不重叠、可独立检索" rule are the spec's quoted wording.
 */
export const COMPLEXITY_PROMPT_TEMPLATE = `你是一个问题复杂度规划器。请判断下面的用户问题是简单问题还是复杂问题。

判断标准：
- simple（简单问题）：事实查询、定义查询、单一信息点查询、明确的二选一问题、某个具体属性/参数/规格的查询。
- complex（复杂问题）：需要跨文档综合、多角度分析、比较对比、多步骤推理，或需要综合多个来源的信息才能回答。

输出要求：
- complexity：只能是 simple 或 complex。
- reason：用一句话说明判断理由。
- sub_questions：如果是复杂问题，给出 2-4 个互不重叠、可独立检索的子问题，每个子问题都应能单独拿去检索知识库；如果是简单问题，返回空列表。

用户问题：{question}`;

/** The single user message of the complexity planner call (spec §4.2 step 4). */
export function buildComplexityPrompt(question: string): UserMessage {
  return fillTemplate(COMPLEXITY_PROMPT_TEMPLATE, { question });
}
