import { fillTemplate, type UserMessage } from './user-message';

/**
 * spec §7.1: the evidence grader's prompt (GRADE_MODEL, temperature 0, structured output `evidence_grade`).
 * The rubric for relevance, answerability, ambiguity and route is the spec's, in the original's language; the
 * context is the formatted evidence of spec §4.4.2.
 */
export const GRADER_PROMPT_TEMPLATE = `你是 RAG 证据评分器。请只根据下面的检索片段，判断它们是否足以回答用户问题；不要补充检索片段以外的任何信息。

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

用户问题：{question}

检索片段：
{context}`;

/** The single user message of the grader call (spec §4.5 step 2): the question and the formatted snippets. */
export function buildGraderPrompt(question: string, context: string): UserMessage {
  return fillTemplate(GRADER_PROMPT_TEMPLATE, { question, context });
}
