import type { WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { decodeFromPayloadsAtIndex, decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { IngestHeartbeat } from '../core/ingest/ingest-io';

/*
 * What the ingestFile activities of a batch are doing right now (issue 14 §5): the workflow only knows which files
 * run, so `ragtime ingest` reads the rest from the server's record of each pending activity — its last heartbeat
 * (stage, batch, what it waits on: core/ingest/ingest-io.ts IngestWait), attempt and last failure — decoded with the
 * client's data converter, so an encrypted batch reads too.
 */

const State = temporal.api.enums.v1.PendingActivityState;

export type IngestAttempt = {
  /** The file (absolute path) its heartbeat names; null before its first heartbeat. */
  file: string | null;
  /** `scheduled` with attempt > 1: waiting out the backoff before a retry. */
  state: 'scheduled' | 'started' | 'cancel_requested' | 'paused';
  attempt: number;
  /** 0: unlimited. */
  maximumAttempts: number;
  heartbeat: IngestHeartbeat | null;
  /** The previous attempt's failure message, decoded. */
  lastFailure: string | null;
  /** When the next attempt starts (epoch ms), while in backoff. */
  nextAttemptAt: number | null;
};

function stateOf(state: temporal.api.enums.v1.PendingActivityState | null | undefined): IngestAttempt['state'] {
  if (state === State.PENDING_ACTIVITY_STATE_STARTED) return 'started';
  if (state === State.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED) return 'cancel_requested';
  if (state === State.PENDING_ACTIVITY_STATE_PAUSED || state === State.PENDING_ACTIVITY_STATE_PAUSE_REQUESTED) return 'paused';
  return 'scheduled';
}

/** The batch's pending ingestFile activities, as the server describes them. */
export async function readIngestAttempts(handle: WorkflowHandle): Promise<IngestAttempt[]> {
  const converter = handle.client.options.loadedDataConverter;
  const description = await handle.describe();
  const pending = (description.raw.pendingActivities ?? []).filter((activity) => activity.activityType?.name === 'ingestFile');
  return Promise.all(
    pending.map(async (activity): Promise<IngestAttempt> => {
      const details = activity.heartbeatDetails?.payloads?.length ? await decodeFromPayloadsAtIndex<unknown>(converter, 0, activity.heartbeatDetails.payloads) : null;
      const heartbeat = IngestHeartbeat.safeParse(details);
      const failure = activity.lastFailure ? await decodeOptionalFailureToOptionalError(converter, activity.lastFailure) : undefined;
      return {
        file: heartbeat.success ? heartbeat.data.file : null,
        state: stateOf(activity.state),
        attempt: activity.attempt ?? 1,
        maximumAttempts: activity.maximumAttempts ?? 0,
        heartbeat: heartbeat.success ? heartbeat.data : null,
        lastFailure: failure?.message ?? activity.lastFailure?.message ?? null,
        nextAttemptAt: optionalTsToMs(activity.nextAttemptScheduleTime) ?? null,
      };
    }),
  );
}
