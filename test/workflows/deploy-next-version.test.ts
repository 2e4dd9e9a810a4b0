import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { RagClient } from '../../client/rag-client';
import { chunk, grade, retrievalTable } from '../support/scenario';
import { createActivities } from '../../activities';
import { createWorker, defaultAuditStore, newTaskQueue, openWorkflowEnv, scriptedAdapters, sessionId, type WorkflowEnv } from './harness';

/*
 * Safe deploys of workflow code (issue 18 §2, docs/DEPLOYMENT.md): a run waits for a person on version N of the
 * workflow code; version N+1 is deployed (the N worker stops, an N+1 worker starts on the same task queue) and the
 * person's answer completes the run there. N+1 changes the commands a run issues, behind patched() — the project's
 * rule. The same change without patched() fails to replay the waiting run's history, which is what the replay tests
 * of committed histories catch before such a deploy.
 */

let env: WorkflowEnv;
const bundle = (file: string) =>
  bundleWorkflowCode({
    workflowsPath: require.resolve(`../fixtures/next-version/${file}`),
    logger: new DefaultLogger('WARN'),
    ...(env.dataConverter.failureConverterPath ? { failureConverterPath: env.dataConverter.failureConverterPath } : {}),
  });

beforeAll(async () => {
  env = await openWorkflowEnv();
}, 120_000);
afterAll(async () => env?.close());

const Q = '这个角色的属性是什么？';
const Q_STAR = '丹瑾：这个角色的属性是什么？';
const script = () =>
  scriptedAdapters({
    retrieve: retrievalTable({ [Q]: [chunk('角色属性总表')], [Q_STAR]: [chunk('丹瑾是湮灭属性角色。')] }),
    grades: {
      [Q]: [grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] })],
      [Q_STAR]: [grade('strong', 'sufficient', 'none', 'answer', 0.95), grade('strong', 'sufficient', 'none', 'answer', 0.95)],
    },
  });

test('a run parked on version N is answered after version N+1 is deployed; the unguarded change would not replay', async () => {
  const taskQueue = newTaskQueue();
  const adapters = script();
  const rag = RagClient.fromClient(env.client, taskQueue);

  const versionN = await createWorker(env, adapters, taskQueue);
  const asked = await versionN.runUntil(rag.ask(Q, { sessionId: sessionId() }));
  expect(asked).toMatchObject({ status: 'awaiting_input', route: 'clarify' });
  const history = await env.client.workflow.getHandle(asked.workflowId).fetchHistory();

  // Before deploying: N+1 must replay what N wrote. Unguarded, it does not.
  const [guarded, unguarded] = [await bundle('guarded.ts'), await bundle('unguarded.ts')];
  await expect(Worker.runReplayHistory({ workflowBundle: unguarded, dataConverter: env.dataConverter }, history, asked.workflowId)).rejects.toThrow(/[Nn]ondetermin/);
  await Worker.runReplayHistory({ workflowBundle: guarded, dataConverter: env.dataConverter }, history, asked.workflowId);

  // The deploy: N is gone, N+1 serves the queue and receives the person's answer.
  const versionNext = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: guarded,
    dataConverter: env.dataConverter,
    activities: createActivities({ models: adapters.models, retriever: adapters.retriever, audit: defaultAuditStore() }),
  });
  const done = await versionNext.runUntil(async () => {
    const answered = await rag.answer(asked.workflowId, '丹瑾');
    const fresh = await rag.ask(Q_STAR, { sessionId: sessionId() });
    return { answered, fresh };
  });
  expect(done.answered).toMatchObject({ status: 'completed', route: 'answer' });
  expect(done.fresh).toMatchObject({ status: 'completed', route: 'answer' });
  expect(done.answered.answer?.text).toContain('湮灭');

  // The old run kept N's path (no marker of the change); a run started on N+1 takes the new one.
  const patchesOf = async (workflowId: string) =>
    ((await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [])
      .flatMap((event) => event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
      .map((payload) => Buffer.from(payload.data ?? []).toString('utf8'));
  expect((await patchesOf(asked.workflowId)).join()).not.toContain('ragtime-test-next-version');
  expect((await patchesOf(done.fresh.workflowId)).join()).toContain('ragtime-test-next-version');
}, 180_000);
