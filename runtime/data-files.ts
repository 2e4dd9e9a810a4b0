import * as path from 'node:path';
import type { RagConfig } from '../core/config';

/** The SQLite file of the parent store when no DATABASE_URL is set. */
export function sqliteFileOf(config: RagConfig): string {
  return path.resolve(config.database.dataDir, 'ragtime.sqlite');
}

/** The SQLite file of the audit store (and the HTTP API's session owners) when no DATABASE_URL is set. */
export function auditSqliteFileOf(config: RagConfig): string {
  return path.resolve(config.database.dataDir, 'audit.sqlite');
}
