import { renderStep } from '../../../cli/render/progress';
import { stepMessage } from '../../../server/mcp/follow-progress';
import { shownStep } from '../../../core/progress/rag-step';
import * as steps from '../../../core/progress/step-messages';
import { RagRun } from '../../../core/run/rag-run';

/*
 * Issue 33 §6: steps are read in the question's language, and the auto-merge step's Python-style True/False read as
 * words; the spec's exact texts stay in label and detail (spec §4.13, §10.6).
 */

const meta = { leaf_retrieve_level: 3, candidate_k: 24, auto_merge_enabled: true, auto_merge_applied: false, auto_merge_replaced_chunks: 0, retrieval_mode: 'hybrid' };

function stepsOf(question: string) {
  const run = new RagRun(0);
  run.question = question;
  run.step(steps.classifyStarted(), 5);
  run.step(steps.initialRetrievalDone(meta, 2), 40);
  run.step(steps.answerDone('verified', 2), 90);
  return run.steps();
}

test('an English question: every step is shown in English; label and detail keep the spec texts', () => {
  const shown = stepsOf('How much does the Zephyr K7 cost?');
  expect(shown.map((step) => { const { label, detail } = shownStep(step); return `${step.icon} ${label} | ${detail}`; })).toEqual([
    '🧭 Analysing the question... | ',
    '🧱 Three-level chunk retrieval | leaves at L3, 24 candidates',
    '🧩 Auto-merging | enabled: yes, applied: no, chunks replaced: 0',
    '✅ Retrieval done: 2 chunks found | mode: hybrid',
    '✅ Answer written, citations verified | 2 citations',
  ]);
  expect(shown.map((step) => step.label)).toEqual(['正在分析问题复杂度...', '三级分块检索', 'Auto-merging 合并', '检索完成，找到 2 个片段', '回答已生成，引用已校验']);
  expect(shown[2]?.detail).toBe('启用: True，应用: False，替换片段: 0');
});

test('a Chinese question: the spec texts, except True/False read as 是/否', () => {
  const shown = stepsOf('Aurora X2 路由器的保修期是多久？');
  expect(shown.filter((step) => step.shown).map((step) => shownStep(step))).toEqual([{ label: 'Auto-merging 合并', detail: '启用: 是，应用: 否，替换片段: 0' }]);
  expect(shown.map((step) => shownStep(step).label)).toEqual(['正在分析问题复杂度...', '三级分块检索', 'Auto-merging 合并', '检索完成，找到 2 个片段', '回答已生成，引用已校验']);
});

test('the terminal and MCP progress show the reading', () => {
  const [, , merge] = stepsOf('How much does the Zephyr K7 cost?');
  expect(renderStep(merge!)).toBe('      40 ms  🧩 Auto-merging  enabled: yes, applied: no, chunks replaced: 0');
  expect(stepMessage(merge!)).toBe('🧩 Auto-merging — enabled: yes, applied: no, chunks replaced: 0');
});
