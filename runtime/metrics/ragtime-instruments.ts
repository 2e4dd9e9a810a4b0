import type { Meter } from '@opentelemetry/api';

/*
 * ragtime's own metrics, defined once (names, units, help texts): what an operator graphs next to the Temporal
 * SDK's. Labels are closed sets (activity types, routes, statuses, model names from the configuration, legs), never
 * a question, a session or a run id.
 */

/** Latency buckets in seconds, from a fast-path lookup to a slow model call. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export type RagtimeInstruments = ReturnType<typeof ragtimeInstruments>;

export function ragtimeInstruments(meter: Meter) {
  return {
    runs: meter.createCounter('ragtime_runs', { description: 'Runs that ended, by route and status (completed, failed, cancelled)' }),
    hitlWaiting: meter.createObservableGauge('ragtime_hitl_waiting', { description: 'Runs on this task queue waiting for a person (clarify or scope_select)' }),
    modelCalls: meter.createCounter('ragtime_model_calls', { description: 'Model calls (planner, grader, rewriter, answer writer) by activity, model and outcome' }),
    modelCallSeconds: meter.createHistogram('ragtime_model_call_duration_seconds', { description: 'Model call latency by activity and model', unit: 's', advice: { explicitBucketBoundaries: SECONDS } }),
    retrievals: meter.createCounter('ragtime_retrievals', { description: 'Retrievals by purpose (initial, rewritten, sub_question, hitl_targeted) and whether evidence came back' }),
    retrievalSeconds: meter.createHistogram('ragtime_retrieval_duration_seconds', { description: 'Retrieval latency per stage (embed, dense, bm25, fuse, merge, rerank, total)', unit: 's', advice: { explicitBucketBoundaries: SECONDS } }),
    ingestedFiles: meter.createCounter('ragtime_ingested_files', { description: 'Files ingested, by outcome' }),
    ingestedLeaves: meter.createCounter('ragtime_ingested_leaves', { description: 'Leaf chunks embedded and stored by ingestion' }),
    ingestSeconds: meter.createHistogram('ragtime_ingest_file_duration_seconds', { description: 'Time to ingest one file (parse, split, embed, store)', unit: 's', advice: { explicitBucketBoundaries: SECONDS } }),
    activitySeconds: meter.createHistogram('ragtime_activity_duration_seconds', { description: 'Every ragtime activity attempt, by type and outcome', unit: 's', advice: { explicitBucketBoundaries: SECONDS } }),
  };
}
