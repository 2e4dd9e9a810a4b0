import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RagClient } from '../../client/rag-client';
import type { KbStats } from '../../core/knowledge/knowledge-base';
import type { RetrievalResult } from '../../core/trace/writers';
import { createMcpServer } from './create-mcp-server';
import { localScope } from './mcp-scope';

export type McpStdioOptions = {
  /** The session of runs whose tool call names none. */
  defaultSession: string;
  kbOf(requested: string | undefined): string | undefined;
  workerCheck(): Promise<void>;
  search?(query: string, kb: string | undefined): Promise<{ kb: string; result: RetrievalResult }>;
  kbStats?(kb: string): Promise<KbStats>;
};

/**
 * `ragtime mcp`: the MCP server on this process' stdin/stdout, in the local user's scope, until the client closes
 * stdin (the usual way a client ends a stdio server) or SIGINT/SIGTERM. stdout carries the protocol alone: the
 * caller sends every log line to stderr.
 */
export async function serveMcpStdio(rag: RagClient, options: McpStdioOptions): Promise<void> {
  const server = createMcpServer({
    rag,
    scope: localScope({ defaultSession: options.defaultSession, kbOf: options.kbOf }),
    workerCheck: options.workerCheck,
    ...(options.search ? { search: options.search } : {}),
    ...(options.kbStats ? { kbStats: options.kbStats } : {}),
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
  await server.close();
}
