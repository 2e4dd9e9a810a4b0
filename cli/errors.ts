import { isRagError, type RagErrorCode } from '../core/errors';
import { EXIT } from './exit-codes';

const USAGE_CODES: ReadonlySet<RagErrorCode> = new Set<RagErrorCode>([
  'INVALID_INPUT',
  'INVALID_CONFIG',
  'INVALID_RESUME_STATE',
  'UNKNOWN_RUN',
  'NOT_AWAITING_INPUT',
  'UNKNOWN_KB',
  'UNKNOWN_DOCUMENT',
  'DOCUMENT_EXISTS',
  // Only a file named to `ragtime ingest` reaches here (cli/document-ids.ts); in a batch it is one file's failure.
  'UNSUPPORTED_FILE',
]);

/** Prints one clear line (the stack only with --verbose) and returns the exit code. */
export function reportError(error: unknown, verbose: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  if (isRagError(error)) {
    console.error(`ragtime: ${error.code}: ${message}`);
    if (verbose && error.cause) console.error(error.cause);
    if (error.code === 'SERVICE_UNAVAILABLE') return EXIT.unavailable;
    return USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failed;
  }
  console.error(`ragtime: ${message}`);
  if (verbose && error instanceof Error) console.error(error.stack);
  return EXIT.failed;
}
