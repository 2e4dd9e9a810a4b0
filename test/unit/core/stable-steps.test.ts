import { ProgressLog, type RagStep } from '../../../core/progress/rag-step';
import { stableSteps } from '../../../core/progress/stable-steps';
import * as steps from '../../../core/progress/step-messages';

/*
 * stableSteps (issue 14 §12): the part of a progress listing whose indexes are final, i.e. what the progress stream
 * may send under those indexes as event ids. The steps are built with the real step messages, as
 * workflows/fan-out.ts and workflows/sub-question-workflow.ts record them; listings are built as
 * RagClient.getProgress builds them (the parent's steps, then each running sub-question's live steps, in order).
 */

const Q1 = '丹瑾是什么属性？';
const Q2 = '丹恒是什么属性？';

/** A sub-question's steps: retrieve_initial then grade_documents (spec §4.9); no evidence adds the ⚠️ step. */
function subQuestionSteps(index: number, question: string, docCount: number): RagStep[] {
  const log = new ProgressLog(0);
  const group = { group: steps.subQuestionGroup(index), groupLabel: question };
  log.add(steps.initialRetrievalStarted(), 10 * index, group);
  for (const message of steps.initialRetrievalDone({}, docCount)) log.add(message, 10 * index + 1, group);
  log.add(steps.gradingStarted(), 10 * index + 1, group);
  log.add(docCount ? steps.graded('answer', 'answerable', 0.95, '', '') : steps.graded('no_knowledge', 'no_knowledge', 0, '', ''), 10 * index + 2, group);
  return log.all();
}

const parentLog = () => {
  const log = new ProgressLog(0);
  for (const message of [steps.classifyStarted(), steps.plannedComplexity('complex', '两个角色'), steps.subQuestionQueued(1, Q1), steps.subQuestionQueued(2, Q2)]) log.add(message, 1);
  return log;
};
const PARENT = parentLog().all();
const SUB_1 = subQuestionSteps(1, Q1, 1);
const SUB_2 = subQuestionSteps(2, Q2, 0);
/** The parent's log at the end: its steps, the adopted sub-questions (fan-out.ts), synthesis, the answer node. */
const FINAL = (() => {
  const log = parentLog();
  log.append(SUB_1);
  log.append(SUB_2);
  for (const message of [steps.synthesisStarted(2), steps.synthesisDone(1), steps.answerStarted(1), steps.answerDone('verified', 1)]) log.add(message, 40);
  return log.all();
})();

test('a simple run: its listing is its log, stable as a whole', () => {
  const log = new ProgressLog(0);
  for (const message of [steps.classifyStarted(), steps.fastPathSimple(), steps.initialRetrievalStarted()]) log.add(message, 1);
  expect(stableSteps(log.all())).toEqual(log.all());
  expect(stableSteps([])).toEqual([]);
});

test('a complex run after adoption (and a HITL resume after it): stable as a whole', () => {
  expect(stableSteps(FINAL)).toEqual(FINAL);
  const resumed = [...FINAL, { ...steps.resumeReceived('丹瑾'), elapsed_ms: 50, stage_elapsed_ms: 10 }];
  expect(stableSteps(resumed)).toEqual(resumed);
});

test('sub-question 2 waits while sub-question 1 runs; sub-question 1 is sent live', () => {
  const listing = [...PARENT, ...SUB_1.slice(0, 1), ...SUB_2.slice(0, 5)];
  expect(stableSteps(listing).map((step) => step.group ?? step.label)).toEqual([
    '正在分析问题复杂度...',
    '复杂问题 → 将分解为子问题并行检索',
    '子问题 1',
    '子问题 2',
    '子问题 1',
  ]);
});

test('a sub-question missing from the listing (its query failed) holds back the ones after it', () => {
  expect(stableSteps([...PARENT, ...SUB_2])).toEqual(PARENT);
});

test('every listing of the run in flight: the stable part is a prefix of the final log, as long as it can be', () => {
  for (let a = 0; a <= SUB_1.length; a += 1) {
    for (let b = 0; b <= SUB_2.length; b += 1) {
      const listing = [...PARENT, ...SUB_1.slice(0, a), ...SUB_2.slice(0, b)];
      // Until sub-question 1 has finished, only its own steps; then sub-question 2's as they come.
      const expected = a < SUB_1.length ? PARENT.length + a : PARENT.length + SUB_1.length + b;
      expect({ a, b, stable: stableSteps(listing) }).toEqual({ a, b, stable: FINAL.slice(0, expected) });
    }
  }
});
