/** One model call's timeout by default (MODEL_TIMEOUT_SECONDS): a hosted API's budget; the local model has its own (core/local-model.ts). */
export const DEFAULT_MODEL_TIMEOUT_MS = 45_000;
/**
 * A model activity's start-to-close backstop (workflows/activity-options.ts): a call's own limit is its timeout, so no
 * timeout may reach it — the activity would be cut before the call's own error could say what happened.
 */
export const MODEL_CALL_BACKSTOP_MS = 600_000;
/** The longest MODEL_TIMEOUT_SECONDS accepted: the backstop less room for the ladder's step down. */
export const MAX_MODEL_TIMEOUT_MS = 540_000;
