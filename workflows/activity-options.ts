import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { MODEL_CALL_BACKSTOP_MS } from '../core/model-output/timeouts';

/*
 * Timeouts and retries of every activity, in one table. Transient failures (network, 429, 5xx, timeouts) retry
 * with backoff (DESIGN §4); errors whose type is listed as non-retryable fail at once.
 */

/** Errors no retry can fix. Model activities also decide per attempt (schema-invalid output: at most 2 retries). */
export const TERMINAL_ERRORS = [
  'INVALID_INPUT',
  'INVALID_CONFIG',
  'MODEL_NOT_CONFIGURED',
  'MODEL_OUTPUT_INVALID',
  'PLANNER_NO_SUB_QUESTIONS',
  'REWRITE_INCOMPLETE',
  'UNKNOWN_KB',
  'UNKNOWN_DOCUMENT',
  'DOCUMENT_EXISTS',
];

/**
 * How soon a worker that died in the middle of an activity is noticed (issue 14 §1): the model and retrieval
 * activities heartbeat every HEARTBEAT_EVERY_MS while they wait on a provider (activities/heartbeats.ts), so the
 * server retries them elsewhere after this much silence instead of after the whole start-to-close timeout.
 */
const DEAD_WORKER_TIMEOUT = '10 seconds';

/**
 * A model activity's backstop. A model call's own limit is the worker's MODEL_TIMEOUT_SECONDS (45 s for a hosted API,
 * 300 s for the local model: core/config.ts), enforced by the adapter, and a dead worker is noticed by its heartbeat;
 * this only has to outlast the longest call (and the ladder's step down) those settings allow. At 60 s it cut the
 * local model's answers (about 60–250 s on two cores) short: "Activity task timed out" and a failed run.
 */
export const MODEL_CALL_BACKSTOP = MODEL_CALL_BACKSTOP_MS;

/** Planner, grader, rewriter, answer writer (spec §4.2, §4.5, §4.7, §4.8): one model call each. */
export const MODEL_CALL: ActivityOptions = {
  startToCloseTimeout: MODEL_CALL_BACKSTOP,
  heartbeatTimeout: DEAD_WORKER_TIMEOUT,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: TERMINAL_ERRORS,
  },
};

/**
 * Retrieval (spec §6.1) never throws for infrastructure errors, so retries only cover a lost worker or a hung
 * call: embedding + Milvus + parent store + rerank (5 s default) fit in 60 s.
 */
export const RETRIEVAL: ActivityOptions = {
  startToCloseTimeout: '60 seconds',
  heartbeatTimeout: DEAD_WORKER_TIMEOUT,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: TERMINAL_ERRORS,
  },
};

/**
 * ingestFile (spec §6.11): parse, split, embed 50 leaves at a time and insert; a large PDF may take an hour. Bad
 * files are terminal. It heartbeats what it waits on every 2 s (issue 14 §5), so a lost worker is noticed within
 * 15 s and `ragtime ingest` reads progress at most 12 s old (the SDK sends a heartbeat per 0.8 × this timeout).
 * A failed attempt keeps the leaves it inserted and the next one resumes after them: five attempts are five tries
 * at the rest of the file, not at all of it.
 */
export const INGEST_FILE: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '15 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [...TERMINAL_ERRORS, 'UNSUPPORTED_FILE', 'CORRUPT_FILE', 'EMPTY_DOCUMENT'],
  },
};

/**
 * flushLeaves (after an ingestion batch): one Milvus flush, which seals the batch's rows into indexed segments;
 * seconds for tens of thousands of leaves. A failure leaves the knowledge searchable, only slower, so the batch
 * reports it and still succeeds.
 */
export const FLUSH_LEAVES: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: TERMINAL_ERRORS,
  },
};

/**
 * recordAudit (DESIGN §5 layer B): one small idempotent insert. Short, because a completing or failing run waits for
 * it before it settles; three attempts cover a busy SQLite file or a PostgreSQL failover. After that the workflow logs
 * and goes on: the run's outcome is what matters, and a batch that failed is sent again at the next settle point.
 */
export const AUDIT: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: TERMINAL_ERRORS,
  },
};

/** pruneStores (issue 35 §1): a few deletes by indexed age; retried, and the next pass catches up anyway. */
export const HOUSEKEEPING: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5, nonRetryableErrorTypes: TERMINAL_ERRORS },
};

/**
 * recordAudit as a local activity (AUDIT_LOCAL_PATCH): the same budget, run by the worker inside the workflow task.
 * Its retries back off in the worker; the run still waits for the rows before it settles.
 */
export const AUDIT_LOCAL: LocalActivityOptions = {
  startToCloseTimeout: AUDIT.startToCloseTimeout,
  retry: AUDIT.retry,
};

/**
 * The conversation activities (issue 25 §1) as local activities: a read of the session's turns (and, for a follow-up,
 * one FAST_MODEL call) before the graph, an insert after it. Local, so a first turn adds no activity task to the run;
 * a failure is not the run's (the question is used as asked, a turn not recorded is logged), so the retries are few;
 * the condenser's model call has the model backstop (a local model's call takes tens of seconds).
 */
export const CONVERSATION_LOCAL: LocalActivityOptions = {
  startToCloseTimeout: MODEL_CALL_BACKSTOP,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 4,
    nonRetryableErrorTypes: TERMINAL_ERRORS,
  },
};

/**
 * A sync pass's listing and removals (issue 46): they read every file of the source (hashing it) or delete a
 * document at a time, heartbeating as they go, so a dead worker is noticed in a minute; a source that is gone
 * (SOURCE_UNAVAILABLE) is not retried: the next scheduled pass tries again.
 */
export const SYNC_STEP: ActivityOptions = {
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5, nonRetryableErrorTypes: [...TERMINAL_ERRORS, 'SOURCE_UNAVAILABLE'] },
};
