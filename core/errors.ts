import { z } from 'zod';

/**
 * The closed set of error codes ragtime raises. Across Temporal they travel as
 * `ApplicationFailure.type`; in-process they are `RagError.code`.
 * Add codes, never rename one: the strings are persisted in workflow histories.
 */
export const RagErrorCode = z.enum([
  'INVALID_INPUT',
  'INVALID_CONFIG',
  'INVALID_RESUME_STATE',
  'INVALID_TRACE',
  'NOT_AWAITING_INPUT',
  'UNKNOWN_RUN',
  'MODEL_NOT_CONFIGURED',
  'MODEL_OUTPUT_INVALID',
  'MODEL_OUTPUT_RETRY',
  'PLANNER_NO_SUB_QUESTIONS',
  'REWRITE_INCOMPLETE',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
  'UNSUPPORTED_FILE',
  'CORRUPT_FILE',
  'EMPTY_DOCUMENT',
  // Payload encryption (client/codec): a payload sealed with a key this process does not hold, or one that fails
  // authentication (tampered, truncated, or sealed with another key under the same id).
  'CODEC_KEY_UNKNOWN',
  'PAYLOAD_DECRYPT_FAILED',
  // Knowledge bases and documents (DESIGN §4b): a knowledge base or a document that does not exist, and a document
  // id already held by another file (replaced only when asked to).
  'UNKNOWN_KB',
  'UNKNOWN_DOCUMENT',
  'DOCUMENT_EXISTS',
  // A run cancelled from outside (RagClient.cancel, an MCP client cancelling its tool call): it ends CANCELLED.
  'CANCELLED',
  // Synced sources (issue 46 §3): the folder or repository a pass reads is gone, or the pass would remove more of the
  // source's documents than it may.
  'SOURCE_UNAVAILABLE',
  'MASS_DELETE_REFUSED',
  // A run closed from outside by Temporal (issue 43 §6): terminated (`temporal workflow terminate`), or past its
  // execution timeout. Only outcomes carry them (core/run/run-closure.ts); nothing throws them.
  'TERMINATED',
  'TIMED_OUT',
]);
export type RagErrorCode = z.infer<typeof RagErrorCode>;

/** Codes that no retry can fix: the run (or the call) fails at once. */
const TERMINAL_CODES: ReadonlySet<RagErrorCode> = new Set<RagErrorCode>([
  'INVALID_INPUT',
  'INVALID_CONFIG',
  'INVALID_RESUME_STATE',
  'INVALID_TRACE',
  'NOT_AWAITING_INPUT',
  'UNKNOWN_RUN',
  'MODEL_NOT_CONFIGURED',
  'PLANNER_NO_SUB_QUESTIONS',
  'REWRITE_INCOMPLETE',
  'UNSUPPORTED_FILE',
  'CORRUPT_FILE',
  'EMPTY_DOCUMENT',
  'CODEC_KEY_UNKNOWN',
  'PAYLOAD_DECRYPT_FAILED',
  'UNKNOWN_KB',
  'UNKNOWN_DOCUMENT',
  'DOCUMENT_EXISTS',
  'CANCELLED',
  'SOURCE_UNAVAILABLE',
  'MASS_DELETE_REFUSED',
]);

export class RagError extends Error {
  override readonly name = 'RagError';
  readonly code: RagErrorCode;

  constructor(code: RagErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** True when retrying cannot change the outcome. */
  get terminal(): boolean {
    return TERMINAL_CODES.has(this.code);
  }
}

export function isRagError(value: unknown): value is RagError {
  return value instanceof RagError;
}

/** One readable line from a zod error, prefixed with what was being parsed. */
export function describeZodError(subject: string, error: z.ZodError): string {
  return `${subject}: ${z.prettifyError(error).replace(/\s*\n\s*/g, ' ')}`;
}
