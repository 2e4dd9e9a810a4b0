import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createSessionTurnStore, type SessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import type { RagStep } from '../../core/progress/rag-step';
import { RagClient } from '../../client/rag-client';
import { chunk, grade, plannerResult, retrievalTable } from '../support/scenario';
import { defaultAuditStore, openWorkflowEnv, scriptedAdapters, sessionId, type WorkflowEnv } from './harness';

/*
 * The CI failure of 2026-12-04 (progress-ids: the live stream's first step at 230 ms, the finished run's at 18 ms).
 * A query that arrives while a local activity runs makes Temporal's core end the workflow task early; live, the
 * local activity's result then comes back in a new task, at that task's start time, while a replay resolves it at
 * the activity's recorded completion time. Steps stamped right after it (the first ones, after openTurn) read
 * different times live and replayed (workflows/stamp-clock.ts). Here a query waits for the run's first workflow task,
 * and progress is asked every 25 ms after it, with openTurn quick or slow; the steps seen live must equal those a
 * fresh worker replays from the history.
 */

const QUESTION = 'Aurora X2 路由器的保修期是多久？';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let env: WorkflowEnv;
let store: SqlSessionTurnStore;
beforeAll(async () => {
  env = await openWorkflowEnv();
  store = createSessionTurnStore({ sqliteFile: ':memory:' });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await env?.close();
});

/** The real store, reading and appending a session's turns slowly. */
const slowTurns = (ms: number): SessionTurnStore => ({
  ...store,
  async turnsOf(...args) {
    await sleep(ms);
    return store.turnsOf(...args);
  },
  async append(...args) {
    await sleep(ms);
    return store.append(...args);
  },
});

const adapters = () =>
  scriptedAdapters({
    retrieve: retrievalTable({ [QUESTION]: [chunk('Aurora X2 路由器的保修期为两年。')] }),
    planner: plannerResult('simple', '单一事实问题', []),
    grades: { [QUESTION]: [grade('strong', 'sufficient', 'none', 'answer', 0.95)] },
  });

async function startWorker(taskQueue: string, openTurnMs: number): Promise<Worker> {
  const { models, retriever } = adapters();
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever, audit: defaultAuditStore(), turns: slowTurns(openTurnMs) }),
  });
}

test.each([
  ['returns within the first workflow task', 0],
  ['outlasts the first workflow task', 1_500],
])('steps stamped after openTurn (which %s) read the same live, while progress is asked, and replayed', async (_case, openTurnMs) => {
  const taskQueue = `test-${randomUUID()}`;
  const rag = RagClient.fromClient(env.client, taskQueue);
  // Started before a worker polls, with a query waiting: the first workflow task carries the query, which is
  // answered while openTurn runs.
  const { workflowId } = await rag.start(QUESTION, { sessionId: sessionId() });
  const firstQuery = rag.getProgress(workflowId);
  await sleep(200);
  const live = await startWorker(taskQueue, openTurnMs);
  let seenLive: RagStep[] = [];
  let queries = 0;
  await live.runUntil(async () => {
    await firstQuery;
    const outcome = env.client.workflow.getHandle(workflowId).result() as Promise<{ route: string }>;
    let settled = false;
    void outcome.finally(() => (settled = true));
    while (!settled) {
      const steps = await rag.getProgress(workflowId);
      queries += 1;
      if (steps.length >= seenLive.length) seenLive = steps;
      await sleep(25);
    }
    expect((await outcome).route).toBe('answer');
    // Asked of the live worker's cached run once more: the finished run's steps, of which the live ones are the start.
    const finished = await rag.getProgress(workflowId);
    expect(finished.slice(0, seenLive.length)).toEqual(seenLive);
    seenLive = finished;
  });
  expect(queries).toBeGreaterThan(2);

  // A fresh worker has no cached run: the query replays the history.
  const replaying = await startWorker(taskQueue, openTurnMs);
  const replayed = await replaying.runUntil(rag.getProgress(workflowId));
  expect(replayed.length).toBeGreaterThanOrEqual(4);
  expect(replayed).toEqual(seenLive);
}, 60_000);

