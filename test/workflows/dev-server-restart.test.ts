import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RagClient } from '../../client/rag-client';
import { startPrivateDevServer, type PrivateDevServer } from '../support/private-dev-server';
import { chunk, grade, metaM0 } from '../support/scenario';
import { createWorker, newTaskQueue, openWorkflowEnv, scriptedAdapters, sessionId, type WorkflowEnv } from './harness';

/*
 * Chaos (issue 14 §4): the Temporal dev server killed with SIGKILL in the middle of `ask`, then started again on
 * the same port and database. The run itself survives (its history is in the server's SQLite file); the caller
 * must too: `ask` reattaches to the same workflow id and returns the run's outcome instead of failing.
 */

const DOWN_MS = 20_000;
let dir: string;
let server: PrivateDevServer;
let env: WorkflowEnv;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-dev-server-restart-'));
  server = await startPrivateDevServer(dir);
  env = await openWorkflowEnv({ address: server.address });
}, 120_000);

afterAll(async () => {
  await env?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the dev server killed mid-ask and restarted: ask reattaches and returns the outcome', async () => {
  const question = '丹瑾是什么属性？';
  // The grader takes 3 s, so the run is still going when the server dies.
  const adapters = scriptedAdapters({
    retrieve: () => ({ docs: [chunk('丹瑾是湮灭属性角色。')], meta: metaM0(1) }),
    // Several: an attempt cut off by the outage is retried.
    grades: { [question]: Array.from({ length: 5 }, () => grade('strong', 'sufficient', 'none', 'answer', 0.9)) },
    modelDelayMs: 3_000,
  });
  const taskQueue = newTaskQueue();
  const worker = await createWorker(env, adapters, taskQueue);
  const rag = RagClient.fromClient(env.client, taskQueue);
  const port = Number(server.address.split(':')[1]);
  const outcome = await worker.runUntil(async () => {
    const asked = rag.ask(question, { sessionId: sessionId() });
    const failedEarly = asked.then(() => null, (error: unknown) => error);
    // Killed while the update-with-start waits for the run to accept it: the server's retries give up on an
    // outage of this length (SDK ServiceError "Update-With-Start failed" before the client reattached).
    await new Promise((resolve) => setTimeout(resolve, 30));
    await server.kill();
    const killedAt = Date.now();
    // Down for a while, as when an operator restarts it (the issue saw `ask` give up here).
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    server = await startPrivateDevServer(dir, { port });
    const restartedAt = Date.now();
    const result = await asked;
    console.log(`chaos: dev server SIGKILL mid-ask → restarted after ${restartedAt - killedAt} ms → ask returned ${Date.now() - killedAt} ms after the kill`);
    expect(await failedEarly).toBeNull();
    return result;
  });
  expect(outcome).toMatchObject({ status: 'completed', route: 'answer', retrieval_status: 'answerable' });
  expect(outcome.answer?.text).toContain('湮灭');
}, 120_000);
