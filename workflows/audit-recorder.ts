import { log, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AuditActivities } from '../activities/contracts';
import type { AuditTrail } from '../core/audit/audit-trail';
import type { AuditIds } from '../core/audit/tool-invocation';
import type { AuditBatch } from '../core/schemas/audit';
import { AUDIT, AUDIT_LOCAL } from './activity-options';

/**
 * How a run records its audit: not at all (histories from before AUDIT_PATCH), as a regular activity (histories
 * from before AUDIT_LOCAL_PATCH), or as a local activity — a small idempotent insert that the worker runs inside
 * the workflow task, so recording the audit costs the run no extra round trip through the server.
 */
export type AuditMode = 'off' | 'activity' | 'local';

const audit = proxyActivities<AuditActivities>(AUDIT);
const localAudit = proxyLocalActivities<AuditActivities>(AUDIT_LOCAL);

/**
 * Sends a run's pending audit rows with the recordAudit activity at its settle points (DESIGN §5 layer B).
 * A failing audit never fails or changes the run: after the activity's retries (activity-options AUDIT) the batch is
 * put back, a warning is logged, and the run goes on; the batch is sent again at the next settle point, which the
 * store's idempotent inserts make harmless. Disabled (no commands at all) for histories recorded before AUDIT_PATCH.
 */
export class AuditRecorder {
  private inFlight: Array<Promise<void>> = [];

  constructor(
    private readonly trail: AuditTrail,
    private readonly ids: AuditIds,
    private readonly mode: AuditMode,
  ) {}

  /** Sends what is pending without waiting: the run starts waiting for input meanwhile. */
  flush(): void {
    if (this.mode === 'off') return;
    const batch = this.trail.take(this.ids);
    if (batch) this.inFlight.push(this.send(batch));
  }

  /**
   * Waits for the batches in flight, then sends what is pending (including a batch that failed earlier) and waits
   * for that too. Used just before the run completes or fails, so the rows exist once its outcome does.
   */
  async settle(): Promise<void> {
    if (this.mode === 'off') return;
    await this.drain();
    this.flush();
    await this.drain();
  }

  private async drain(): Promise<void> {
    const waiting = this.inFlight;
    this.inFlight = [];
    await Promise.all(waiting);
  }

  private async send(batch: AuditBatch): Promise<void> {
    try {
      if (this.mode === 'local') await localAudit.recordAudit.executeWithOptions({ ...AUDIT_LOCAL, summary: 'record_audit' }, [batch]);
      else await audit.recordAudit.executeWithOptions({ ...AUDIT, summary: 'record_audit' }, [batch]);
    } catch (error) {
      // Also a cancellation: the audit is a record of the run, never a reason for it to end differently.
      this.trail.requeue(batch);
      log.warn('recordAudit failed; the run goes on and the rows are sent again at the next settle point', {
        invocations: batch.invocations.length,
        events: batch.events.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
