import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { auditActivities } from '../../../activities/audit-activities';
import type { AuditStore } from '../../../activities/ports';
import { runStartedEvent } from '../../../core/audit/diagnosis-events';
import { RagError } from '../../../core/errors';
import type { AuditBatch } from '../../../core/schemas/audit';

/* The recordAudit activity (DESIGN §5 layer B): the batch parsed at the edge, store failures typed for retries. */

const batch: AuditBatch = {
  invocations: [],
  events: [runStartedEvent({ sessionId: 's', workflowId: 'w', runId: 'r' }, 0, { resumed: false, maxRounds: 3, answerTimeoutMs: 1 })],
};

const storeWith = (record: AuditStore['record']): AuditStore => ({
  record,
  sessionTrace: async (sessionId) => ({ sessionId, runs: [], toolInvocations: [], events: [] }),
  close: async () => undefined,
});

async function failureOf(run: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await run.then(() => null, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

test('without a store: nothing is recorded and the run is not affected (a warning, once)', async () => {
  const { recordAudit } = auditActivities(undefined);
  const warnings: string[] = [];
  const logger = new DefaultLogger('WARN', (entry) => {
    if (entry.level === 'WARN') warnings.push(entry.message);
  });
  const activity = new MockActivityEnvironment(undefined, { logger });
  expect(await activity.run(recordAudit, batch)).toEqual({ invocations: 0, events: 0 });
  expect(await activity.run(recordAudit, batch)).toEqual({ invocations: 0, events: 0 });
  expect(warnings).toEqual(['recordAudit: this worker has no audit store; audit rows are not recorded']);
});

test('a valid batch goes to the store, which says what it inserted', async () => {
  const seen: AuditBatch[] = [];
  const { recordAudit } = auditActivities(storeWith(async (b) => (seen.push(b), { invocations: 0, events: 1 })));
  expect(await new MockActivityEnvironment().run(recordAudit, batch)).toEqual({ invocations: 0, events: 1 });
  expect(seen).toEqual([batch]);
});

test('an invalid batch is INVALID_INPUT, not retried, and never reaches the store', async () => {
  let called = false;
  const { recordAudit } = auditActivities(storeWith(async () => ((called = true), { invocations: 0, events: 0 })));
  const broken = { invocations: [], events: [{ ...batch.events[0], event_type: 'exploded' }] } as unknown as AuditBatch;
  const failure = await failureOf(new MockActivityEnvironment().run(recordAudit, broken));
  expect([failure.type, failure.nonRetryable]).toEqual(['INVALID_INPUT', true]);
  expect(failure.message).toMatch(/^invalid audit batch: /);
  expect(called).toBe(false);
});

test('a store failure keeps its code and stays retryable (SERVICE_UNAVAILABLE)', async () => {
  const { recordAudit } = auditActivities(storeWith(async () => {
    throw new RagError('SERVICE_UNAVAILABLE', 'audit store record failed (x): down');
  }));
  const failure = await failureOf(new MockActivityEnvironment().run(recordAudit, batch));
  expect([failure.type, failure.nonRetryable, failure.message]).toEqual(['SERVICE_UNAVAILABLE', false, 'audit store record failed (x): down']);
});
