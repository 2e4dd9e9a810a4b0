import { log, proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping-activities';
import type { HousekeepingInput, HousekeepingReport } from '../core/housekeeping/housekeeping-io';
import { HOUSEKEEPING } from './activity-options';

const housekeeping = proxyActivities<HousekeepingActivities>(HOUSEKEEPING);

/**
 * One housekeeping pass (issue 35 §1), started by the deployment's Temporal Schedule (workers/housekeeping-schedule.ts):
 * the answer stream of runs that went quiet, and, with a retention, the audit rows and session turns older than it.
 * Its result says what went, per store; the schedule's recent actions in the Temporal UI link to each pass.
 */
export async function housekeepingWorkflow(input: HousekeepingInput): Promise<HousekeepingReport> {
  const report = await housekeeping.pruneStores.executeWithOptions({ ...HOUSEKEEPING, summary: 'prune_stores' }, [input]);
  log.info('housekeeping pass', { ...report });
  return report;
}
