import { format } from 'node:util';
import type { LogEntry } from '@temporalio/worker';

/*
 * The worker's log (issue 33 §5): one line per entry. The SDK's default prints an entry's metadata with util.format,
 * so a failed activity attempt is its error's whole stack and every cause's (about 200 lines for one unreachable model
 * call). Here an error is its type and message, with its causes' messages after it, on the entry's line; ids stay
 * (workflow, activity, attempt), so each attempt is one line that says where and why. RAGTIME_LOG_STACKS=true
 * prints the SDK's format, stacks and all.
 */

type ErrorLike = { name?: unknown; message?: unknown; type?: unknown; code?: unknown; cause?: unknown };

const isError = (value: unknown): value is ErrorLike => value instanceof Error || (typeof value === 'object' && value !== null && 'message' in value && 'stack' in value);

/** An error as one line: "Name[type]: message ← cause message ← …" (a few causes deep). */
export function errorLine(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    if (!isError(current)) {
      parts.push(String(current));
      break;
    }
    const kind = typeof current.type === 'string' ? current.type : typeof current.code === 'string' ? current.code : null;
    const name = typeof current.name === 'string' ? current.name : 'Error';
    const message = String(current.message ?? '').split('\n')[0]!.trim();
    const text = `${name}${kind ? `[${kind}]` : ''}: ${message}`;
    if (!parts.some((part) => part.endsWith(message) && message !== '')) parts.push(text);
    current = current.cause;
  }
  return parts.join(' ← ');
}

const value = (item: unknown): string => (isError(item) ? errorLine(item) : typeof item === 'string' ? item : format('%o', item).replace(/\s*\n\s*/g, ' '));

/** One log entry as one line: time, level, message, then `key=value` for each metadata field. */
export function oneLineEntry(entry: LogEntry): string {
  const at = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const meta = Object.entries(entry.meta ?? {})
    .filter(([, item]) => item !== undefined)
    .map(([key, item]) => `${key}=${value(item)}`);
  return [`${at} [${entry.level}] ${entry.message}`, ...meta].join(' ');
}

/** The log function of the worker's DefaultLogger: one line per entry on stderr. */
export const oneLineLogFunction = (entry: LogEntry): void => {
  process.stderr.write(`${oneLineEntry(entry)}\n`);
};
