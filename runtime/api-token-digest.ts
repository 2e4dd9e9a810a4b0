import { createHash } from 'node:crypto';

/**
 * The hex SHA-256 of an API token: what RAGTIME_API_TOKENS holds. Shared by the server, which compares digests, and
 * the CLI, which prints them (`ragtime token hash|new`), so both always hash alike.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
