import type { MetadataFilters } from '../../core/retrieval/metadata-filter';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import type { RagClient } from '../../client/rag-client';
import type { KbStats } from '../../core/knowledge/knowledge-base';
import type { EvidenceGrade } from '../../core/schemas/model-outputs';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { RetrievalResult } from '../../core/trace/writers';
import { CallTracker } from './audit-tool-call';
import { createMcpServer } from './create-mcp-server';
import { localScope } from './mcp-scope';

export type McpStdioOptions = {
  /** The session of runs whose tool call names none; absent: each such run is a conversation of its own. */
  defaultSession?: string;
  kbOf(requested: string | undefined): string | undefined;
  workerCheck(): Promise<void>;
  search?(query: string, kb: string | undefined, filters?: MetadataFilters): Promise<{ kb: string; result: RetrievalResult }>;
  kbStats?(kb: string): Promise<KbStats>;
  /** search_knowledge's relevance_level from the configured grader (null: none, and the scores decide). */
  grade?(query: string, docs: Chunk[]): Promise<EvidenceGrade | null>;
  /** The audit store that keeps a row per tool call (the worker's: audit.sqlite, or DATABASE_URL); none: not recorded. */
  audit?: { databaseUrl?: string | undefined; sqliteFile: string; includeContent: boolean };
};

const STOP_GRACE_MS = 5_000;

/**
 * `ragtime mcp`: the MCP server on this process' stdin/stdout, in the local user's scope, until the client closes
 * stdin (the usual way a client ends a stdio server) or SIGINT/SIGTERM. stdout carries the protocol alone: the
 * caller sends every log line to stderr.
 */
export async function serveMcpStdio(rag: RagClient, options: McpStdioOptions): Promise<void> {
  // Opened lazily by its first write: a session that only lists tools never touches the database.
  const audit = options.audit ? createAuditStore(options.audit) : undefined;
  // The answer as it is written (issue 25 §2) is read from the same database, where the workers write it.
  const answerStream = options.audit ? createAnswerStreamStore(options.audit) : undefined;
  const calls = new CallTracker();
  const server = createMcpServer({
    calls,
    rag,
    scope: localScope({ ...(options.defaultSession ? { defaultSession: options.defaultSession } : {}), kbOf: options.kbOf, rag }),
    workerCheck: options.workerCheck,
    ...(options.search ? { search: options.search } : {}),
    ...(options.grade ? { grade: options.grade } : {}),
    ...(options.kbStats ? { kbStats: options.kbStats } : {}),
    ...(audit ? { audit } : {}),
    ...(answerStream ? { answerStream } : {}),
  });
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    // The SDK's stdio transport does not watch for the end of its input itself.
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await ended;
  try {
    await server.close();
    // The close aborted the calls in flight (their runs stay durable); let them write their audit rows first.
    await calls.settled(STOP_GRACE_MS);
  } finally {
    await Promise.allSettled([audit?.close(), answerStream?.close()]);
  }
}
