import { isoTime } from '../core/audit/bounded-text';
import { HousekeepingInput, housekeepingCutoffs, type HousekeepingReport } from '../core/housekeeping/housekeeping-io';

/** The stores housekeeping prunes; a store a worker does not keep is left out and counts 0. */
export type HousekeepingStores = {
  audit?: { pruneBefore(cutoff: string): Promise<{ invocations: number; events: number }> };
  turns?: { pruneBefore(cutoff: string): Promise<number> };
  answerStream?: { pruneQuietSince(quietSince: string): Promise<number> };
};

export interface HousekeepingActivities {
  /** Deletes what the retention and the answer stream's keep time say has expired (issue 35 §1); idempotent. */
  pruneStores(input: HousekeepingInput): Promise<HousekeepingReport>;
}

export function housekeepingActivities(stores: HousekeepingStores, now: () => number = Date.now): HousekeepingActivities {
  return {
    async pruneStores(rawInput) {
      const input = HousekeepingInput.parse(rawInput);
      const cutoffs = housekeepingCutoffs(input, now());
      const retainedSince = cutoffs.retainedSince === null ? null : isoTime(cutoffs.retainedSince);
      const answerStreamQuietSince = isoTime(cutoffs.answerStreamQuietSince);
      const answerStreamEvents = (await stores.answerStream?.pruneQuietSince(answerStreamQuietSince)) ?? 0;
      const audit = retainedSince === null ? undefined : await stores.audit?.pruneBefore(retainedSince);
      const sessionTurns = retainedSince === null ? 0 : ((await stores.turns?.pruneBefore(retainedSince)) ?? 0);
      return {
        retentionDays: input.retentionDays,
        retainedSince,
        answerStreamQuietSince,
        answerStreamEvents,
        auditInvocations: audit?.invocations ?? 0,
        auditEvents: audit?.events ?? 0,
        sessionTurns,
      };
    },
  };
}
