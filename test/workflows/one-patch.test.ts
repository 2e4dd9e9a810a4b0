import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { AesGcmCodec } from '../../client/codec/aes-gcm-codec';
import { ONE_PATCH } from '../../workflows/start-patches';
import { TEST_KEYRING } from '../support/codec-keys';
import { chunk, grade, plannerResult, retrievalTable } from '../support/scenario';
import { openWorkflowEnv, sessionId, withWorker, type WorkflowEnv } from './harness';

/*
 * Issue 36 §2: a new run records one patch marker (ONE_PATCH) in its first activation and asks no other patch, so
 * it records one TemporalChangeVersion upsert instead of one per patch (a fast run had five of each), and writes its
 * memo once, with its state, instead of once per field. The same run replays from its history.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = temporal.api.enums.v1.EventType;
const codec = new AesGcmCodec(TEST_KEYRING);

const Q = '丹瑾是什么属性？';
const script = {
  retrieve: retrievalTable({ [Q]: [chunk('丹瑾是一名湮灭属性的角色。', { chunk_id: 'doc.pdf::p1::l3::1', filename: 'doc.pdf', page_number: 1 })] }),
  planner: plannerResult('simple', '单一事实问题', []),
  grades: { [Q]: [grade('strong', 'sufficient', 'none', 'answer', 0.95)] },
};

let env: WorkflowEnv;
beforeAll(async () => {
  env = await openWorkflowEnv();
}, 120_000);
afterAll(() => env?.close());

const patchIdOf = (event: HistoryEvent): string | null => {
  const attributes = event.markerRecordedEventAttributes;
  const data = attributes?.markerName === 'core_patch' ? attributes.details?.['patch-data']?.payloads?.[0]?.data : undefined;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id : null;
};
const isLocalActivity = (event: HistoryEvent) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity';
const upsertKeys = (event: HistoryEvent) => Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});

test.each([
  ['speculation off', 'off'],
  ['speculation answer', 'answer'],
] as const)('a new run (%s) records one patch marker, one change-version upsert and one memo change, and replays', async (_name, speculation) => {
  const { workflowId, outcome } = await withWorker(env, script, async (rag) => {
    const workflowId = `one-patch-${sessionId()}`;
    const outcome = await rag.ask(Q, { sessionId: sessionId(), workflowId, speculation });
    return { workflowId, outcome };
  });
  expect(outcome.route).toBe('answer');
  expect(outcome.answer?.verification.status).toBe('verified');

  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const events: HistoryEvent[] = history.events ?? [];
  const patches = events.map(patchIdOf).filter((id): id is string => id !== null);
  expect(patches).toEqual([ONE_PATCH]);
  // Decided before the run's first local activity (test/replay/split-task.test.ts says why).
  const markerAt = events.findIndex((event) => patchIdOf(event) !== null);
  expect(markerAt).toBeLessThan(events.findIndex(isLocalActivity));
  expect(events.filter((event) => upsertKeys(event).includes('TemporalChangeVersion'))).toHaveLength(1);
  // The run's own state: published when it is planned and when it ends.
  expect(events.filter((event) => upsertKeys(event).includes('RagStatus'))).toHaveLength(2);

  const memoChanges = events.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED);
  expect(memoChanges).toHaveLength(1);
  const fields = memoChanges[0]?.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields ?? {};
  const memo = Object.fromEntries(
    await Promise.all(Object.entries(fields).map(async ([key, payload]) => [key, defaultPayloadConverter.fromPayload((await codec.decode([payload]))[0]!)])),
  );
  expect(Object.keys(memo).sort()).toEqual(['answerModel', 'models']);
  // The memo is written with the run's last state: the run's description shows it beside the client's start memo.
  const described = await env.client.workflow.getHandle(workflowId).describe();
  expect(Object.keys(described.memo ?? {})).toEqual(expect.arrayContaining(['answerModel', 'models', 'question']));

  await Worker.runReplayHistory({ workflowBundle: env.workflowBundle, dataConverter: env.dataConverter }, history, workflowId);
}, 60_000);

test('sub-questions of a new run ask no patch: the parent says so in their input; each writes its memo once', async () => {
  const QC = '比较丹瑾与卡卡罗的战斗定位';
  const SUBS = ['丹瑾的战斗定位', '卡卡罗的战斗定位'];
  const complexScript = {
    retrieve: retrievalTable({
      [SUBS[0]!]: [chunk('丹瑾的战斗定位是输出。', { chunk_id: 'doc.pdf::p1::l3::2', filename: 'doc.pdf', page_number: 1 })],
      [SUBS[1]!]: [chunk('卡卡罗的战斗定位是主输出。', { chunk_id: 'doc.pdf::p1::l3::3', filename: 'doc.pdf', page_number: 1 })],
    }),
    planner: plannerResult('complex', '比较两个角色', SUBS),
    grades: Object.fromEntries(SUBS.map((sub) => [sub, [grade('strong', 'sufficient', 'none', 'answer', 0.9)]])),
  };
  const workflowId = `one-patch-${sessionId()}`;
  const outcome = await withWorker(env, complexScript, (rag) => rag.ask(QC, { sessionId: sessionId(), workflowId, speculation: 'off' }));
  expect(outcome.route).toBe('answer');
  const historyOf = async (id: string): Promise<HistoryEvent[]> => (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  expect((await historyOf(workflowId)).map(patchIdOf).filter((id) => id !== null)).toEqual([ONE_PATCH]);
  for (const index of [1, 2]) {
    const child = await historyOf(`${workflowId}/sub-${index}`);
    expect(child.map(patchIdOf).filter((id) => id !== null)).toEqual([]);
    expect(child.filter((event) => upsertKeys(event).length > 0)).toEqual([]);
    expect(child.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED)).toHaveLength(1);
  }
}, 60_000);
