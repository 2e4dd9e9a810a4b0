import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';

/*
 * Replays many histories with one replay worker (Worker.runReplayHistories) instead of one worker per history:
 * 193 committed histories in ~8 s here against ~24 s one by one (issue 31: the replay layer had grown to ~100 suite
 * seconds). The worker replays them one at a time, in the order given, so each result is matched to its history by
 * position (the cuts of one history share its workflow id).
 */

/** A history as scripts/export-replay-histories.ts writes it (JSON of temporal.api.history.v1.History). */
type HistoryJson = { events: Array<Record<string, unknown>> };

/** The id a history was recorded under: children's ids derive from their parent's, so replay under it. */
export const recordedWorkflowId = (json: HistoryJson): string =>
  (json.events[0]?.workflowExecutionStartedEventAttributes as { workflowId: string }).workflowId;

/** Replays every history; resolves each key to the replay's error message, or null when it replayed. */
export async function replayEach<K>(options: ReplayWorkerOptions, histories: Array<{ key: K; json: HistoryJson }>): Promise<Map<K, string | null>> {
  const items = histories.map(({ json }) => ({ workflowId: recordedWorkflowId(json), history: historyFromJSON(json) }));
  const results = new Map<K, string | null>();
  let index = 0;
  for await (const result of Worker.runReplayHistories(options, items)) {
    const entry = histories[index];
    if (entry === undefined || result.workflowId !== items[index]?.workflowId) throw new Error(`replay result ${index} (${result.workflowId}) does not match the history given`);
    results.set(entry.key, result.error ? `${result.error.name}: ${result.error.message}` : null);
    index += 1;
  }
  if (index !== histories.length) throw new Error(`${histories.length} histories given, ${index} replayed`);
  return results;
}
