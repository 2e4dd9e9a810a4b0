import { ApplicationFailure, log } from '@temporalio/activity';
import { describeZodError, isRagError } from '../core/errors';
import { AuditBatch } from '../core/schemas/audit';
import type { AuditActivities } from './contracts';
import type { AuditStore } from './ports';

/** A store failure as Temporal sees it: the RagError code as the type, retryable unless the code is terminal. */
function toFailure(error: unknown): unknown {
  if (isRagError(error)) {
    return ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: error.terminal, cause: error });
  }
  return error;
}

/**
 * The recordAudit activity (DESIGN §5 layer B). Without a store (a worker built without one, e.g. a scripted test
 * worker) it records nothing and says so once, so runs behave the same with or without an audit store.
 */
export function auditActivities(store: AuditStore | undefined): AuditActivities {
  let saidNoStore = false;
  return {
    async recordAudit(batch: AuditBatch) {
      if (store === undefined) {
        if (!saidNoStore) {
          saidNoStore = true;
          log.warn('recordAudit: this worker has no audit store; audit rows are not recorded');
        }
        return { invocations: 0, events: 0 };
      }
      const parsed = AuditBatch.safeParse(batch);
      if (!parsed.success) {
        throw ApplicationFailure.create({
          type: 'INVALID_INPUT',
          message: describeZodError('invalid audit batch', parsed.error),
          nonRetryable: true,
        });
      }
      try {
        return await store.record(parsed.data);
      } catch (error) {
        throw toFailure(error);
      }
    },
  };
}
