/**
 * Smoke test: the Temporal dev server started by scripts/services.sh runs a real workflow from Node.
 * A worker (bundled once) executes a workflow with a signal, a query and an activity; the five custom search
 * attributes are registered with the right types, upserted by the workflow and found by visibility queries.
 */
import { randomUUID } from 'node:crypto';
import { Client, type Connection } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import * as activities from './fixtures/smoke-activities';
import {
  RagComplexity,
  RagHitlRounds,
  RagRoute,
  RagSessionId,
  RagStatus,
  approveSignal,
  smokeWorkflow,
  stateQuery,
} from './fixtures/smoke-workflow';
import { assertReachable, pollUntil, services } from '../support/services';

const NAMESPACE = 'default';

let workflowBundle: WorkflowBundleWithSourceMap;
let nativeConnection: NativeConnection;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  await assertReachable('Temporal (dev server)', services.temporalAddress);
  // Worker lifecycle logs at INFO would drown the test output; keep warnings and errors.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  connection = await connectTemporal({ address: services.temporalAddress });
  client = new Client({ connection, namespace: NAMESPACE });
  nativeConnection = await NativeConnection.connect({ address: services.temporalAddress });
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./fixtures/smoke-workflow'),
    logger: new DefaultLogger('WARN'),
  });
}, 120_000);

afterAll(async () => {
  await nativeConnection?.close();
  await connection?.close();
});

test('the five ragtime search attributes are registered with their types', async () => {
  const response = await connection.operatorService.listSearchAttributes({ namespace: NAMESPACE });
  const custom = response.customAttributes ?? {};
  const keyword = encodeSearchAttributeIndexedValueType('KEYWORD');
  const int = encodeSearchAttributeIndexedValueType('INT');
  expect({
    RagSessionId: custom.RagSessionId,
    RagStatus: custom.RagStatus,
    RagRoute: custom.RagRoute,
    RagComplexity: custom.RagComplexity,
    RagHitlRounds: custom.RagHitlRounds,
  }).toEqual({
    RagSessionId: keyword,
    RagStatus: keyword,
    RagRoute: keyword,
    RagComplexity: keyword,
    RagHitlRounds: int,
  });
});

test('a workflow with a signal, a query and an activity runs and is found by its search attributes', async () => {
  const taskQueue = `smoke-${randomUUID()}`;
  const sessionId = `smoke-session-${randomUUID()}`;
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: NAMESPACE,
    taskQueue,
    workflowBundle,
    activities,
  });

  const result = await worker.runUntil(async () => {
    const handle = await client.workflow.start(smokeWorkflow, {
      taskQueue,
      workflowId: `smoke-${sessionId}`,
      args: [{ sessionId, name: 'ragtime' }],
      workflowExecutionTimeout: '3 minutes',
    });

    // Query: the workflow is waiting for its signal.
    const waiting = await pollUntil('the smoke workflow to answer its state query', async () => {
      const state = await handle.query(stateQuery);
      return state.phase === 'waiting' ? state : undefined;
    });
    expect(waiting).toEqual({ phase: 'waiting', approvedBy: null, greeting: null });

    // Visibility: the upserted attributes are searchable (visibility may lag a little behind the history).
    const found = await pollUntil(
      'the running workflow to show up in a RagStatus="running" visibility query',
      async () => {
        for await (const info of client.workflow.list({
          query: `RagSessionId = "${sessionId}" AND RagStatus = "running" AND RagRoute = "smoke"`,
        })) {
          return info;
        }
        return undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(found.workflowId).toBe(handle.workflowId);
    expect(found.typedSearchAttributes.get(RagRoute)).toBe('smoke');
    expect(found.typedSearchAttributes.get(RagComplexity)).toBe('simple');
    expect(found.typedSearchAttributes.get(RagHitlRounds)).toBe(0);

    // Signal, then the activity runs and the workflow completes.
    await handle.signal(approveSignal, 'smoke-test');
    const done = await handle.result();

    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.typedSearchAttributes.get(RagSessionId)).toBe(sessionId);
    expect(description.typedSearchAttributes.get(RagStatus)).toBe('completed');
    expect(description.typedSearchAttributes.get(RagHitlRounds)).toBe(1);

    const completed = await pollUntil(
      'the completed workflow to show up in a RagStatus="completed" AND RagHitlRounds = 1 query',
      async () => {
        for await (const info of client.workflow.list({
          query: `RagSessionId = "${sessionId}" AND RagStatus = "completed" AND RagHitlRounds = 1`,
        })) {
          return info;
        }
        return undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(completed.runId).toBe(handle.firstExecutionRunId);
    return done;
  });

  expect(result).toEqual({
    phase: 'done',
    approvedBy: 'smoke-test',
    greeting: 'hello ragtime, approved by smoke-test',
  });
});
