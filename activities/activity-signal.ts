import { Context } from '@temporalio/activity';

/**
 * The cancellation signal of the activity the caller runs in, or undefined outside one (a test or a tool calling the
 * function directly). Issue 43 §3, §6: a model adapter hands it to its HTTP request, so that a run cancelled
 * (`ragtime cancel`, the API, the console) or an activity timed out closes the request, and the model server stops
 * generating. The ChatModels port carries no signal: every call runs inside its activity's context (an
 * AsyncLocalStorage), so the adapter reads it here. Temporal delivers a cancellation with the answer to a heartbeat
 * (activities/heartbeats.ts): the model activities heartbeat every HEARTBEAT_EVERY_MS while a call waits.
 */
export function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}
