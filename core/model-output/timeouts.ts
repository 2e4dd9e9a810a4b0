/** One model call's timeout by default (MODEL_TIMEOUT_SECONDS): a hosted API's budget; the local model has its own (core/local-model.ts). */
export const DEFAULT_MODEL_TIMEOUT_MS = 45_000;
