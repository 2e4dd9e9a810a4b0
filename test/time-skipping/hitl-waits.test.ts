import { hitlAnswerSignal } from '../../workflows/messages';
import type { RagOutcome } from '../../core/schemas/run-io';
import { chunk, grade, retrievalTable } from '../support/scenario';
import { openTimeSkippingEnv, type TimeSkippingEnv } from '../support/time-skipping-env';
import { withWorker } from '../workflows/harness';

/*
 * A clarification that waits days for a person (issue 31 §4: the workflow tests of `make check`, on Temporal's
 * time-skipping test server — no local service). The waits are the spec's HITL answer timeout (§4.11) at three days;
 * the test server skips them while the client waits for the run's result, so each test takes seconds.
 */

const DAY = 24 * 3_600_000;
const Q = '这个角色是什么属性？';
const ANSWERED = '丹瑾：这个角色是什么属性？';
const clarify = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { missing_slots: ['角色名'] });
const strong = grade('strong', 'sufficient', 'none', 'answer', 0.95);
const script = { retrieve: retrievalTable({ [Q]: [chunk('丹瑾的属性是虚数。')], [ANSWERED]: [chunk('丹瑾的属性是虚数。')] }), grades: { [Q]: [clarify], [ANSWERED]: [strong] } };

let env: TimeSkippingEnv;

beforeAll(async () => {
  env = await openTimeSkippingEnv();
}, 120_000);

afterAll(async () => {
  await env?.close();
}, 30_000);

test('nobody answers in three days: the run settles with its question, the round timed out, no answer', async () => {
  const outcome = await withWorker(env, script, async (rag) => {
    const { workflowId } = await rag.start(Q, { hitl: { answerTimeoutMs: 3 * DAY } });
    return (await env.client.workflow.getHandle(workflowId).result()) as RagOutcome;
  });
  expect(outcome).toMatchObject({ status: 'completed', route: 'clarify', answer: null });
  expect(outcome.rounds.at(-1)).toMatchObject({ round: 1, outcome: 'timed_out' });
}, 60_000);

test('a person answers on the second day: the run resumes with the answer and answers', async () => {
  const outcome = await withWorker(env, script, async (rag, calls) => {
    const { workflowId } = await rag.start(Q, { hitl: { answerTimeoutMs: 3 * DAY } });
    const handle = env.client.workflow.getHandle(workflowId);
    await env.sleep(2 * DAY);
    await handle.signal(hitlAnswerSignal, '丹瑾');
    const settled = (await handle.result()) as RagOutcome;
    expect(calls.grader).toEqual([Q, ANSWERED]);
    return settled;
  });
  expect(outcome).toMatchObject({ status: 'completed', route: 'answer' });
  expect(outcome.rounds.find((round) => round.round === 1)).toMatchObject({ outcome: 'answered', answer: '丹瑾' });
}, 60_000);
