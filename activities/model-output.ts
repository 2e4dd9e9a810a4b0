import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { isRagError } from '../core/errors';

/** spec-violating model output is retried at most twice (3 attempts in all), then fails the run (DESIGN §4). */
export const MODEL_OUTPUT_ATTEMPTS = 3;

/**
 * Rejects a model reply that breaks its contract. Until the last allowed attempt the failure is retryable (a model
 * at temperature 0 may still answer differently); then it is the terminal MODEL_OUTPUT_INVALID, naming the model,
 * the schema and the violation.
 */
export function invalidModelOutput(what: { model: string; schema: string; violation: string; attempt: number }): ApplicationFailure {
  const message = `${what.model} returned output that violates ${what.schema}: ${what.violation}`;
  if (what.attempt < MODEL_OUTPUT_ATTEMPTS) {
    return ApplicationFailure.retryable(`${message} (attempt ${what.attempt} of ${MODEL_OUTPUT_ATTEMPTS})`, 'MODEL_OUTPUT_RETRY');
  }
  return ApplicationFailure.nonRetryable(message, 'MODEL_OUTPUT_INVALID');
}

/** Parses a raw model reply with its schema, or throws the failure above. */
export function parseModelOutput<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  where: { model: string; schema: string; attempt: number },
): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  // Not describeZodError: its subject prefix would repeat the schema name the message already gives.
  throw invalidModelOutput({ ...where, violation: z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ') });
}

/** Post-processing errors that are really contract violations of the reply (spec §4.2 step 6, §4.7.1). */
export function rethrowAsModelOutput(error: unknown, where: { model: string; schema: string; attempt: number }): never {
  if (isRagError(error) && (error.code === 'PLANNER_NO_SUB_QUESTIONS' || error.code === 'REWRITE_INCOMPLETE' || error.code === 'MODEL_OUTPUT_INVALID')) {
    throw invalidModelOutput({ ...where, violation: error.message });
  }
  if (isRagError(error)) throw ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: error.terminal });
  throw error;
}
