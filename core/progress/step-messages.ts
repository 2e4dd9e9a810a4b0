import { pythonStr } from '../python-text';
import type { VerificationStatus } from '../schemas/answer';
import type { RetrievalStatus, Route, RewriteMethod } from '../schemas/graph-values';
import type { RetrievalMeta } from '../trace/raw-trace';
import type { StepMessage } from './rag-step';

/*
 * The progress messages of the graph, exact texts of spec §4.2–§4.11. Booleans render Python-style (True/False)
 * and confidences with 2 decimals (spec §10.6).
 */

const step = (icon: string, label: string, detail = ''): StepMessage => ({ icon, label, detail });
const firstChars = (text: string, count: number): string => [...text].slice(0, count).join('');
const methodLabel = (method: RewriteMethod): string => (method === 'hyde' ? 'HyDE' : 'Step-back');

/** A follow-up question made to stand alone from the session's earlier turns (issue 25 §1; not a step of the spec's graph). */
export const followUpCondensed = (standalone: string, turns: number) =>
  step('💬', '结合对话历史理解追问', `独立问题: ${firstChars(standalone, 80)}（参考前 ${turns} 轮）`);
export const classifyStarted = () => step('🧭', '正在分析问题复杂度...');
export const fastPathSimple = () => step('⚡', '快速判断为简单问题 → 走标准 RAG 流程');
export const plannedComplexity = (complexity: 'simple' | 'complex', reason: string) =>
  complexity === 'complex'
    ? step('🔀', '复杂问题 → 将分解为子问题并行检索', `理由: ${firstChars(reason, 60)}`)
    : step('✅', '简单问题 → 走标准 RAG 流程', `理由: ${firstChars(reason, 60)}`);
/** The icon of the step that hands a sub-question to its child run. */
export const SUB_QUESTION_QUEUED_ICON = '📌';
/** The `group` of a sub-question's steps, and the label of the step that queues it (1-based index). */
export const subQuestionGroup = (index: number): string => `子问题 ${index}`;
export const subQuestionQueued = (index: number, question: string) =>
  step(SUB_QUESTION_QUEUED_ICON, subQuestionGroup(index), `${firstChars(question, 80)} 已加入并行检索`);

function retrievalDetails(meta: Partial<RetrievalMeta>, prefix: string): StepMessage[] {
  return [
    step('🧱', `${prefix}三级分块检索`, `叶子层 L${meta.leaf_retrieve_level ?? 3} 召回，候选 ${meta.candidate_k ?? 0}`),
    step(
      '🧩',
      'Auto-merging 合并',
      `启用: ${pythonStr(Boolean(meta.auto_merge_enabled))}，应用: ${pythonStr(Boolean(meta.auto_merge_applied))}，替换片段: ${meta.auto_merge_replaced_chunks ?? 0}`,
    ),
  ];
}

export const initialRetrievalStarted = () => step('🔍', '正在检索知识库...', '初始检索');
export function initialRetrievalDone(meta: Partial<RetrievalMeta>, docCount: number): StepMessage[] {
  return [
    ...retrievalDetails(meta, ''),
    step('✅', `检索完成，找到 ${docCount} 个片段`, `模式: ${meta.retrieval_mode || 'hybrid'}`),
    ...(docCount === 0 ? [step('⚠️', '无可用片段，将进入证据评分短路判断')] : []),
  ];
}

export const gradingStarted = () => step('📊', '正在评估证据质量...');
export function graded(route: Route, status: RetrievalStatus, confidence: number, hitlPrompt: string, reason: string) {
  const detail = `置信度: ${confidence.toFixed(2)}`;
  if (route === 'answer' && status === 'partial') return step('🟡', '保留部分相关证据', detail);
  if (route === 'answer') return step('✅', '证据足够，返回检索片段', detail);
  if (route === 'rewrite') return step('⚠️', '证据不足，将改写查询一次', detail);
  if (route === 'clarify' || route === 'scope_select') return step('❓', '需要用户补充信息', hitlPrompt);
  return step('⛔', '知识库中未找到可用证据', reason || 'no_knowledge');
}

export const rewriteStarted = () => [step('✏️', '正在重写查询...'), step('🧠', '选择 Step-back / HyDE 重写方式')];
export const rewriteChosen = (method: RewriteMethod) =>
  step('✅', `已选择 ${methodLabel(method)} 重写`, '本轮只执行这一种重写检索');
export const rewriteBudgetExhausted = () => [step('✏️', '正在重写查询...'), step('⛔', '改写预算已用完，停止检索')];
export const rewrittenRetrievalStarted = (method: RewriteMethod) => step('🔄', `使用 ${methodLabel(method)} 查询重新检索...`);
export function rewrittenRetrievalDone(method: RewriteMethod, meta: Partial<RetrievalMeta>, docCount: number): StepMessage[] {
  return [
    step(
      '🧱',
      `${methodLabel(method)} 三级检索`,
      `L${meta.leaf_retrieve_level ?? 3} 召回，候选 ${meta.candidate_k ?? 0}，合并替换 ${meta.auto_merge_replaced_chunks ?? 0}`,
    ),
    step('✅', `重写检索完成，共 ${docCount} 个片段`),
  ];
}

export const synthesisStarted = (subResultCount: number) => step('🔬', `正在合成 ${subResultCount} 个子问题的检索结果...`);
export const synthesisDone = (docCount: number) =>
  docCount > 0 ? step('✅', `合成完成，共 ${docCount} 个去重片段`) : step('⛔', '所有子问题都没有可用证据');

export const resumeReceived = (rawAnswer: string) => step('▶️', '收到 HITL 补充，继续原 RAG 流程', rawAnswer);
export const targetedRetrievalStarted = () => step('🔎', '使用 HITL 补充进行针对性检索', '跳过复杂度判断与子问题分解');
export function targetedRetrievalDone(meta: Partial<RetrievalMeta>, docCount: number): StepMessage[] {
  return [
    ...retrievalDetails(meta, 'HITL '),
    step('✅', `HITL 针对性检索完成，找到 ${docCount} 个片段`, `模式: ${meta.retrieval_mode || 'hybrid'}`),
  ];
}

/*
 * The answer node (DESIGN §3.6): ragtime's own steps, after the spec's. The writer is told the evidence count; the
 * outcome says whether the citations verified.
 */
export const answerStarted = (docCount: number) => step('✍️', '正在生成回答...', `依据 ${docCount} 个片段`);
export const answerRepairStarted = (problemCount: number) => step('🔧', '引用校验未通过，修正一次', `问题 ${problemCount} 处`);
export function answerDone(status: VerificationStatus, citationCount: number): StepMessage {
  const detail = `引用 ${citationCount} 条`;
  if (status === 'verified') return step('✅', '回答已生成，引用已校验', detail);
  if (status === 'partially_verified') return step('🟡', '回答已生成，部分引用未通过校验', detail);
  return step('⚠️', '回答已生成，引用未通过校验', detail);
}
export const answerFailed = (errorType: string) => step('⛔', '回答生成失败，返回检索证据', errorType);

/** The labels of the answer node's steps: what follows the spec's steps of a run that settled on `answer`. */
export const ANSWER_NODE_LABELS: ReadonlySet<string> = new Set(
  [answerStarted(0), answerRepairStarted(0), answerDone('verified', 0), answerDone('partially_verified', 0), answerDone('unverified', 0), answerFailed('')].map(
    (message) => message.label,
  ),
);
