import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import { createActivities } from '../../activities';
import { housekeepingActivities } from '../../activities/housekeeping-activities';
import { createAnswerStreamStore, type SqlAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import { createAuditStore, type SqlAuditStore } from '../../activities/adapters/sql-audit-store';
import { createSessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import { keepHousekeepingSchedule } from '../../client/housekeeping-schedule';
import { completedEvent, runStartedEvent } from '../../core/audit/diagnosis-events';
import { isoTime } from '../../core/audit/bounded-text';
import { buildToolInvocation, type AuditIds } from '../../core/audit/tool-invocation';
import { housekeepingScheduleId, type HousekeepingReport } from '../../core/housekeeping/housekeeping-io';
import type { AuditBatch } from '../../core/schemas/audit';
import { newMilvusClient } from '../support/milvus';
import { chunk, metaM0 } from '../support/scenario';
import { assertReachable, services } from '../support/services';
import { serviceEnvironment, startWorkerProcess, stopWorkerProcess } from '../support/worker-process';
import { openWorkflowEnv, scriptedAdapters, type WorkflowEnv } from '../workflows/harness';

/*
 * Housekeeping (issue 35 §1) against the real stores (SQLite file and a PostgreSQL database of its own) and the real
 * Temporal dev server: what a pass deletes and keeps, the Temporal Schedule that runs it (created by `ragtime worker`,
 * updated when the retention changes, a triggered pass pruning through a worker), and a second pass deleting nothing.
 */

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 4, 12, 0, 0);
const TAG = randomUUID().slice(0, 8);

/** A run with one invocation and two events, all at `at`. */
function runBatch(ids: AuditIds, at: number): AuditBatch {
  const grade = { route: 'answer' as const, retrievalStatus: 'answerable' as const, relevance: 'strong', answerability: 'sufficient', confidence: 0.9, keptCount: 1, gradedBy: 'scripted-model' };
  return {
    invocations: [
      buildToolInvocation(ids, {
        step: 'initial', stage: 'initial', query: 'q', retrieval: { docs: [chunk('c')], meta: metaM0(1) }, grade, startedAt: at, endedAt: at, errorCode: null,
      }),
    ],
    events: [runStartedEvent(ids, at, { resumed: false, maxRounds: 3, answerTimeoutMs: 60_000 }), completedEvent(ids, at, { route: 'answer', retrievalStatus: 'answerable', rounds: 0, awaitingPerson: false, evidenceCount: 1 })],
  };
}

type Stores = { audit: SqlAuditStore; turns: SqlSessionTurnStore; answerStream: SqlAnswerStreamStore };
type Backend = { name: string; open(): Promise<Stores>; cleanup(): Promise<void> };

let dir = '';
const pgDatabase = `ragtime_housekeeping_${TAG.replace(/-/g, '')}`;
const pgUrl = (database: string) => {
  const url = new URL(services.testDatabaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
};
const openStores = (location: { sqliteFile?: string; databaseUrl?: string }): Stores => ({
  audit: createAuditStore({ ...location, sqliteFile: location.sqliteFile ?? '', includeContent: false }),
  turns: createSessionTurnStore({ ...location, sqliteFile: location.sqliteFile ?? '' }),
  answerStream: createAnswerStreamStore({ ...location, sqliteFile: location.sqliteFile ?? '' }),
});
const BACKENDS: Backend[] = [
  { name: 'SQLite', open: async () => openStores({ sqliteFile: path.join(dir, 'audit.sqlite') }), cleanup: async () => undefined },
  {
    name: 'PostgreSQL',
    async open() {
      await assertReachable('PostgreSQL', new URL(services.testDatabaseUrl).host);
      const admin = new PgClient({ connectionString: services.testDatabaseUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${pgDatabase}`);
      await admin.end();
      return openStores({ databaseUrl: pgUrl(pgDatabase) });
    },
    async cleanup() {
      const admin = new PgClient({ connectionString: services.testDatabaseUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`);
      await admin.end();
    },
  },
];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ragtime-housekeeping-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two runs 40 days old, one from yesterday; a stream quiet for an hour, one written a minute ago. */
async function seed(stores: Stores, now = NOW): Promise<void> {
  const ids = (n: string): AuditIds => ({ sessionId: `s-${n}`, workflowId: `rag-${n}`, runId: `r-${n}` });
  for (const [n, at] of [['old-1', now - 40 * DAY], ['old-2', now - 40 * DAY], ['new', now - DAY]] as const) {
    await stores.audit.record(runBatch(ids(n), at));
    await stores.turns.append('', `s-${n}`, { question: 'q', standaloneQuestion: 'q', answer: 'a', route: 'answer', workflowId: `rag-${n}` }, isoTime(at));
  }
  const delta = (seq: number) => ({ generation: 'answer-1', attempt: 1, seq, kind: 'delta' as const, text: 'x' });
  await stores.answerStream.append('rag-settled', [delta(0), delta(1), { ...delta(2), kind: 'end' }], isoTime(now - 60 * 60_000));
  await stores.answerStream.append('rag-writing', [delta(0)], isoTime(now - 20 * 60_000));
  await stores.answerStream.append('rag-writing', [delta(1)], isoTime(now - 60_000));
}

describe.each(BACKENDS)('a housekeeping pass on $name', (backend) => {
  let stores: Stores;
  beforeAll(async () => {
    stores = await backend.open();
    await seed(stores);
  });
  afterAll(async () => {
    await Promise.allSettled([stores?.audit.close(), stores?.turns.close(), stores?.answerStream.close()]);
    await backend.cleanup();
  });

  test('without a retention: only the answer stream of runs quiet for 10 minutes goes; a second pass removes nothing', async () => {
    const { pruneStores } = housekeepingActivities(stores, () => NOW);
    expect(await pruneStores({ retentionDays: null })).toEqual({
      retentionDays: null,
      retainedSince: null,
      answerStreamQuietSince: isoTime(NOW - 10 * 60_000),
      answerStreamEvents: 3,
      auditInvocations: 0,
      auditEvents: 0,
      sessionTurns: 0,
    });
    // The run still writing keeps all of its events, its first one too (20 minutes old).
    expect(await stores.answerStream.eventsOf('rag-writing', 'answer-1', { attempt: 0, seq: -1 })).toHaveLength(2);
    expect(await stores.answerStream.eventsOf('rag-settled', 'answer-1', { attempt: 0, seq: -1 })).toEqual([]);
    expect((await stores.audit.sessionTrace('s-old-1')).toolInvocations).toHaveLength(1);
    expect((await pruneStores({ retentionDays: null })).answerStreamEvents).toBe(0);
  });

  test('RAGTIME_RETENTION_DAYS=30: the 40-day-old audit rows and turns go, yesterday’s stay; idempotent', async () => {
    const { pruneStores } = housekeepingActivities(stores, () => NOW);
    const report = await pruneStores({ retentionDays: 30 });
    expect(report).toMatchObject({ retainedSince: isoTime(NOW - 30 * DAY), auditInvocations: 2, auditEvents: 4, sessionTurns: 2 });
    for (const gone of ['s-old-1', 's-old-2']) {
      const trace = await stores.audit.sessionTrace(gone);
      expect([trace.toolInvocations.length, trace.events.length, (await stores.turns.turnsOf('', gone)).length]).toEqual([0, 0, 0]);
    }
    const kept = await stores.audit.sessionTrace('s-new');
    expect([kept.toolInvocations.length, kept.events.length, (await stores.turns.turnsOf('', 's-new')).length]).toEqual([1, 2, 1]);
    expect(await pruneStores({ retentionDays: 30 })).toMatchObject({ auditInvocations: 0, auditEvents: 0, sessionTurns: 0, answerStreamEvents: 0 });
  });
});

describe('the housekeeping schedule on the dev server', () => {
  let env: WorkflowEnv;
  const removeSchedule = async (taskQueue: string) => {
    await env.client.schedule.getHandle(housekeepingScheduleId(taskQueue)).delete().catch(() => undefined);
  };
  beforeAll(async () => {
    env = await openWorkflowEnv();
  }, 120_000);
  afterAll(async () => env?.close());

  test('created with the retention, updated when it changes; a triggered pass runs through a worker and prunes', async () => {
    const taskQueue = `test-housekeeping-${TAG}`;
    const stores = openStores({ sqliteFile: path.join(dir, 'scheduled.sqlite') });
    try {
      // Seeded at the real clock: the pass the schedule starts reads it.
      await seed(stores, Date.now());
      const first = await keepHousekeepingSchedule(env.client, taskQueue, { retentionDays: 30 });
      expect(first).toMatchObject({ scheduleId: `ragtime-housekeeping-${taskQueue}`, created: true });
      const again = await keepHousekeepingSchedule(env.client, taskQueue, { retentionDays: 7 });
      expect(again.created).toBe(false);
      const handle = env.client.schedule.getHandle(first.scheduleId);
      const described = await handle.describe();
      expect(described.spec.intervals).toMatchObject([{ every: 600_000 }]);
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'housekeepingWorkflow', taskQueue, args: [{ retentionDays: 7, answerStreamKeepMinutes: 10 }] });

      const { models, retriever } = scriptedAdapters({ retrieve: () => ({ docs: [], meta: metaM0(0) }) });
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: env.workflowBundle,
        dataConverter: env.dataConverter,
        activities: createActivities({ models, retriever, housekeeping: stores }),
      });
      const report = await worker.runUntil(async () => {
        await handle.trigger();
        for (let i = 0; i < 100; i += 1) {
          const actions = (await handle.describe()).info.recentActions;
          const started = actions.at(-1)?.action.workflow;
          if (started) return (await env.client.workflow.getHandle(started.workflowId, started.firstExecutionRunId).result()) as HousekeepingReport;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error('the triggered pass did not start');
      });
      expect(report).toMatchObject({ retentionDays: 7, auditInvocations: 2, auditEvents: 4, sessionTurns: 2, answerStreamEvents: 3 });
      expect((await stores.audit.sessionTrace('s-old-1')).toolInvocations).toEqual([]);
    } finally {
      await removeSchedule(taskQueue);
      await Promise.allSettled([stores.audit.close(), stores.turns.close(), stores.answerStream.close()]);
    }
  }, 60_000);

  test('the dev server scripts/services.sh started keeps closed runs for TEMPORAL_RETENTION (720h), not its own 24h', async () => {
    const { config } = await env.client.workflowService.describeNamespace({ namespace: 'default' });
    expect(Number(config?.workflowExecutionRetentionTtl?.seconds)).toBe(720 * 3600);
  });

  test('`ragtime worker` keeps its task queue’s schedule at start-up and says so; RAGTIME_HOUSEKEEPING=false keeps none', async () => {
    const taskQueue = `test-housekeeping-worker-${TAG}`;
    const collection = `housekeeping_${TAG.replace(/-/g, '')}`;
    const base = { ...serviceEnvironment({ collection, dataDir: path.join(dir, 'worker') }), TEMPORAL_TASK_QUEUE: taskQueue, MODEL_PROVIDER: 'offline' };
    try {
      const kept = await startWorkerProcess({ ...base, RAGTIME_HOUSEKEEPING: 'true', RAGTIME_RETENTION_DAYS: '30' });
      await stopWorkerProcess(kept.child);
      expect(kept.output()).toContain(`housekeeping: schedule ragtime-housekeeping-${taskQueue} every 10 minutes (created)`);
      expect(kept.output()).toContain('audit rows and session turns older than 30 days');
      expect((await env.client.schedule.getHandle(housekeepingScheduleId(taskQueue)).describe()).action).toMatchObject({ args: [{ retentionDays: 30 }] });
      await removeSchedule(taskQueue);
      const none = await startWorkerProcess({ ...base, RAGTIME_HOUSEKEEPING: 'false' });
      await stopWorkerProcess(none.child);
      expect(none.output()).toContain('housekeeping: off (RAGTIME_HOUSEKEEPING=false)');
      await expect(env.client.schedule.getHandle(housekeepingScheduleId(taskQueue)).describe()).rejects.toThrow(/not found/i);
    } finally {
      await removeSchedule(taskQueue);
      // The workers created their default knowledge base at start-up.
      const milvus = newMilvusClient();
      await milvus.dropCollection({ collection_name: collection }).catch(() => undefined);
      await milvus.closeConnection();
    }
  }, 120_000);
});
