import { pythonStr } from '../python-text';
import type { VerificationStatus } from '../schemas/answer';
import type { RetrievalStatus, Route, RewriteMethod } from '../schemas/graph-values';
import type { Intent } from '../schemas/intent';
import type { RetrievalMeta } from '../trace/raw-trace';
import type { StepMessage, StepReading } from './rag-step';

/*
 * The progress messages of the graph, exact texts of spec §4.2–§4.11. Booleans render Python-style (True/False)
 * and confidences with 2 decimals (spec §10.6). Each also says how a person reads it (issue 33 §6): in English for a
 * question not in Chinese, and, where the spec's text shows Python's True/False, in Chinese with 是/否.
 */

const step = (icon: string, label: string, detail = '', en?: StepReading, zh?: StepReading): StepMessage => ({
  icon,
  label,
  detail,
  ...(en || zh ? { readings: { ...(en ? { en } : {}), ...(zh ? { zh } : {}) } } : {}),
});
const read = (label: string, detail = ''): StepReading => ({ label, detail });
const yesNo = (value: boolean): string => (value ? 'yes' : 'no');
const shiFou = (value: boolean): string => (value ? '是' : '否');
const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
const firstChars = (text: string, count: number): string => [...text].slice(0, count).join('');
const methodLabel = (method: RewriteMethod): string => (method === 'hyde' ? 'HyDE' : 'Step-back');

/** A follow-up question made to stand alone from the session's earlier turns (issue 25 §1; not a step of the spec's graph). */
export const followUpCondensed = (standalone: string, turns: number) =>
  step(
    '💬',
    '结合对话历史理解追问',
    `独立问题: ${firstChars(standalone, 80)}（参考前 ${turns} 轮）`,
    read('Follow-up read with the conversation', `standalone question: ${firstChars(standalone, 80)} (from the last ${plural(turns, 'turn')})`),
  );
const INTENT_NAMES: Record<Intent, { zh: string; en: string }> = {
  greeting: { zh: '问候', en: 'A greeting' },
  thanks: { zh: '感谢', en: 'Thanks' },
  conversation_meta: { zh: '关于对话本身的问题', en: 'A question about the conversation' },
  knowledge_query: { zh: '知识库问题', en: 'A knowledge question' },
};
/** A question that needs no retrieval, answered at once (issue 44 §5; not a step of the spec's graph). */
export const answeredWithoutRetrieval = (intent: Intent, decidedBy: 'rules' | 'model') =>
  step(
    '💬',
    `识别为${INTENT_NAMES[intent].zh} → 不检索知识库，直接回复`,
    `意图: ${intent}（${decidedBy === 'model' ? '模型' : '规则'}判断）`,
    read(`${INTENT_NAMES[intent].en} → answered without retrieval`, `intent: ${intent} (decided by the ${decidedBy})`),
  );
export const classifyStarted = () => step('🧭', '正在分析问题复杂度...', '', read('Analysing the question...'));
export const fastPathSimple = () => step('⚡', '快速判断为简单问题 → 走标准 RAG 流程', '', read('A simple question at a glance → standard RAG'));
export const plannedComplexity = (complexity: 'simple' | 'complex', reason: string) =>
  complexity === 'complex'
    ? step('🔀', '复杂问题 → 将分解为子问题并行检索', `理由: ${firstChars(reason, 60)}`, read('A complex question → split into sub-questions, retrieved in parallel', `why: ${firstChars(reason, 60)}`))
    : step('✅', '简单问题 → 走标准 RAG 流程', `理由: ${firstChars(reason, 60)}`, read('A simple question → standard RAG', `why: ${firstChars(reason, 60)}`));
/** The icon of the step that hands a sub-question to its child run. */
export const SUB_QUESTION_QUEUED_ICON = '📌';
/** The `group` of a sub-question's steps, and the label of the step that queues it (1-based index). */
export const subQuestionGroup = (index: number): string => `子问题 ${index}`;
export const subQuestionQueued = (index: number, question: string) =>
  step(
    SUB_QUESTION_QUEUED_ICON,
    subQuestionGroup(index),
    `${firstChars(question, 80)} 已加入并行检索`,
    read(`Sub-question ${index}`, `${firstChars(question, 80)} queued for parallel retrieval`),
  );

function retrievalDetails(meta: Partial<RetrievalMeta>, prefix: string, enPrefix: string): StepMessage[] {
  const enabled = Boolean(meta.auto_merge_enabled);
  const applied = Boolean(meta.auto_merge_applied);
  const replaced = meta.auto_merge_replaced_chunks ?? 0;
  return [
    step(
      '🧱',
      `${prefix}三级分块检索`,
      `叶子层 L${meta.leaf_retrieve_level ?? 3} 召回，候选 ${meta.candidate_k ?? 0}`,
      read(`${enPrefix}Three-level chunk retrieval`, `leaves at L${meta.leaf_retrieve_level ?? 3}, ${plural(meta.candidate_k ?? 0, 'candidate')}`),
    ),
    step(
      '🧩',
      'Auto-merging 合并',
      `启用: ${pythonStr(enabled)}，应用: ${pythonStr(applied)}，替换片段: ${replaced}`,
      read('Auto-merging', `enabled: ${yesNo(enabled)}, applied: ${yesNo(applied)}, chunks replaced: ${replaced}`),
      read('Auto-merging 合并', `启用: ${shiFou(enabled)}，应用: ${shiFou(applied)}，替换片段: ${replaced}`),
    ),
  ];
}

export const initialRetrievalStarted = () => step('🔍', '正在检索知识库...', '初始检索', read('Searching the knowledge base...', 'first retrieval'));
export function initialRetrievalDone(meta: Partial<RetrievalMeta>, docCount: number): StepMessage[] {
  const mode = meta.retrieval_mode || 'hybrid';
  return [
    ...retrievalDetails(meta, '', ''),
    step('✅', `检索完成，找到 ${docCount} 个片段`, `模式: ${mode}`, read(`Retrieval done: ${plural(docCount, 'chunk')} found`, `mode: ${mode}`)),
    ...(docCount === 0 ? [step('⚠️', '无可用片段，将进入证据评分短路判断', '', read('No usable chunks: the grade is decided without the grader'))] : []),
  ];
}

export const gradingStarted = () => step('📊', '正在评估证据质量...', '', read('Grading the evidence...'));
export function graded(route: Route, status: RetrievalStatus, confidence: number, hitlPrompt: string, reason: string) {
  const detail = `置信度: ${confidence.toFixed(2)}`;
  const enDetail = `confidence: ${confidence.toFixed(2)}`;
  if (route === 'answer' && status === 'partial') return step('🟡', '保留部分相关证据', detail, read('Keeping the partly relevant evidence', enDetail));
  if (route === 'answer') return step('✅', '证据足够，返回检索片段', detail, read('Enough evidence: the retrieved chunks answer', enDetail));
  if (route === 'rewrite') return step('⚠️', '证据不足，将改写查询一次', detail, read('Not enough evidence: the query is rewritten once', enDetail));
  if (route === 'clarify' || route === 'scope_select') return step('❓', '需要用户补充信息', hitlPrompt, read('A question for you', hitlPrompt));
  return step('⛔', '知识库中未找到可用证据', reason || 'no_knowledge', read('No usable evidence in the knowledge base', reason || 'no_knowledge'));
}

export const rewriteStarted = () => [
  step('✏️', '正在重写查询...', '', read('Rewriting the query...')),
  step('🧠', '选择 Step-back / HyDE 重写方式', '', read('Choosing a rewrite: Step-back or HyDE')),
];
export const rewriteChosen = (method: RewriteMethod) =>
  step('✅', `已选择 ${methodLabel(method)} 重写`, '本轮只执行这一种重写检索', read(`${methodLabel(method)} rewrite chosen`, 'only this one rewrite is retrieved'));
export const rewriteBudgetExhausted = () => [
  step('✏️', '正在重写查询...', '', read('Rewriting the query...')),
  step('⛔', '改写预算已用完，停止检索', '', read('The rewrite budget is spent: retrieval stops')),
];
export const rewrittenRetrievalStarted = (method: RewriteMethod) =>
  step('🔄', `使用 ${methodLabel(method)} 查询重新检索...`, '', read(`Searching again with the ${methodLabel(method)} query...`));
export function rewrittenRetrievalDone(method: RewriteMethod, meta: Partial<RetrievalMeta>, docCount: number): StepMessage[] {
  const replaced = meta.auto_merge_replaced_chunks ?? 0;
  return [
    step(
      '🧱',
      `${methodLabel(method)} 三级检索`,
      `L${meta.leaf_retrieve_level ?? 3} 召回，候选 ${meta.candidate_k ?? 0}，合并替换 ${replaced}`,
      read(`${methodLabel(method)} three-level retrieval`, `leaves at L${meta.leaf_retrieve_level ?? 3}, ${plural(meta.candidate_k ?? 0, 'candidate')}, ${replaced} replaced by merging`),
    ),
    step('✅', `重写检索完成，共 ${docCount} 个片段`, '', read(`Rewritten retrieval done: ${plural(docCount, 'chunk')}`)),
  ];
}

export const synthesisStarted = (subResultCount: number) =>
  step('🔬', `正在合成 ${subResultCount} 个子问题的检索结果...`, '', read(`Combining the evidence of ${plural(subResultCount, 'sub-question')}...`));
export const synthesisDone = (docCount: number) =>
  docCount > 0
    ? step('✅', `合成完成，共 ${docCount} 个去重片段`, '', read(`Combined: ${plural(docCount, 'distinct chunk')}`))
    : step('⛔', '所有子问题都没有可用证据', '', read('No sub-question found usable evidence'));

export const resumeReceived = (rawAnswer: string) =>
  step('▶️', '收到 HITL 补充，继续原 RAG 流程', rawAnswer, read('Your answer arrived: the run goes on', rawAnswer));
export const targetedRetrievalStarted = () =>
  step('🔎', '使用 HITL 补充进行针对性检索', '跳过复杂度判断与子问题分解', read('Searching again with your answer', 'no planning, no sub-questions'));
export function targetedRetrievalDone(meta: Partial<RetrievalMeta>, docCount: number): StepMessage[] {
  const mode = meta.retrieval_mode || 'hybrid';
  return [
    ...retrievalDetails(meta, 'HITL ', 'Targeted: '),
    step('✅', `HITL 针对性检索完成，找到 ${docCount} 个片段`, `模式: ${mode}`, read(`Targeted retrieval done: ${plural(docCount, 'chunk')} found`, `mode: ${mode}`)),
  ];
}

/*
 * The answer node (DESIGN §3.6): ragtime's own steps, after the spec's. The writer is told the evidence count; the
 * outcome says whether the citations verified.
 */
export const answerStarted = (docCount: number) =>
  step('✍️', '正在生成回答...', `依据 ${docCount} 个片段`, read('Writing the answer...', `from ${plural(docCount, 'chunk')}`));
export const answerRepairStarted = (problemCount: number) =>
  step('🔧', '引用校验未通过，修正一次', `问题 ${problemCount} 处`, read('A citation did not check: one repair', plural(problemCount, 'problem')));
export function answerDone(status: VerificationStatus, citationCount: number): StepMessage {
  const detail = `引用 ${citationCount} 条`;
  const enDetail = plural(citationCount, 'citation');
  if (status === 'verified') return step('✅', '回答已生成，引用已校验', detail, read('Answer written, citations verified', enDetail));
  if (status === 'partially_verified') return step('🟡', '回答已生成，部分引用未通过校验', detail, read('Answer written, some citations did not check', enDetail));
  return step('⚠️', '回答已生成，引用未通过校验', detail, read('Answer written, the citations did not check', enDetail));
}
export const answerFailed = (errorType: string) =>
  step('⛔', '回答生成失败，返回检索证据', errorType, read('The answer could not be written: the evidence is returned', errorType));

/** The labels of the answer node's steps: what follows the spec's steps of a run that settled on `answer`. */
export const ANSWER_NODE_LABELS: ReadonlySet<string> = new Set(
  [answerStarted(0), answerRepairStarted(0), answerDone('verified', 0), answerDone('partially_verified', 0), answerDone('unverified', 0), answerFailed('')].map(
    (message) => message.label,
  ),
);
