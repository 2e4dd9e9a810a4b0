import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RagClient } from '../../client/rag-client';
import type { KbStats } from '../../core/knowledge/knowledge-base';
import type { RagOutcome } from '../../core/schemas/run-io';
import type { AnswerStreamReader } from '../../client/follow-answer';
import { callAuditor, type CallTracker, type McpAuditSink } from './audit-tool-call';
import { elicitAnswers } from './elicit-answers';
import type { McpScope } from './mcp-scope';
import { registerResources } from './resources';
import { registerRunTools } from './run-tools';
import { registerSearchTool, type McpGrade, type McpSearch } from './search-tool';

export type McpServerDeps = {
  rag: RagClient;
  scope: McpScope;
  /** Throws (SERVICE_UNAVAILABLE) when no worker polls the task queue, before a run is started or answered. */
  workerCheck?: () => Promise<void>;
  /** One in-process retrieval (`ragtime search`); without it search_knowledge is not offered. */
  search?: McpSearch;
  /** The configured grader, for search_knowledge's relevance_level; without it the reranker's scores decide. */
  grade?: McpGrade;
  /** A knowledge base's stats (documents, chunks, last ingestion); without it the ragtime://kb/{name} resource is not offered. */
  kbStats?: (kb: string) => Promise<KbStats>;
  /**
   * Whether to ask the person through MCP form elicitation when the client declares it (default true). Turn it off
   * for a transport with no channel for a server-to-client request during a call (stateless Streamable HTTP).
   */
  elicitation?: boolean;
  /** Where each tool call's audit row goes (layer B); without it calls are not recorded. */
  audit?: McpAuditSink;
  /** The side channel of streaming answers (issue 25 §2): progress notifications then carry the answer as it is written. */
  answerStream?: AnswerStreamReader;
  /** Tracks the tool calls in flight, so the caller can let them (and their audit rows) finish before it stops. */
  calls?: CallTracker;
  /** The transport this server is connected to, as the audit rows name it (default stdio). */
  transport?: 'stdio' | 'http';
  /** Where failures that do not reach the agent go (a row not written, a cancellation refused). Default: stderr. */
  log?: (message: string, error: unknown) => void;
  version?: string;
};

const stderrLog = (message: string, error: unknown) => console.error(`ragtime mcp: ${message}: ${error instanceof Error ? error.message : String(error)}`);

/**
 * ragtime's MCP server (docs/MCP.md, issue 15): the knowledge tools of an agent over one RagClient, in the caller's
 * scope. Connect it to a transport (stdio, Streamable HTTP); one instance serves one client connection.
 *
 * @example
 * const server = createMcpServer({ rag, scope: localScope({ defaultSession: 'mcp', kbOf: (kb) => kb }) });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(deps: McpServerDeps): McpServer {
  const { rag, scope } = deps;
  const log = deps.log ?? stderrLog;
  const server = new McpServer({ name: 'ragtime', version: deps.version ?? '0.1.0' }, { capabilities: { tools: {}, resources: {} } });
  const askPerson =
    deps.elicitation === false
      ? async (outcome: RagOutcome) => ({ outcome, elicited: 0 })
      : (outcome: RagOutcome, signal: AbortSignal) => elicitAnswers(server, rag, outcome, signal);
  const audited = callAuditor({
    sink: deps.audit,
    ...(deps.calls ? { tracker: deps.calls } : {}),
    transport: deps.transport ?? 'stdio',
    fallbackSession: () => scope.auditSession(),
    onError: (error) => log('the audit row of a tool call was not written', error),
  });

  registerRunTools(server, {
    rag,
    scope,
    workerCheck: deps.workerCheck ?? (async () => undefined),
    audited,
    askPerson,
    onError: (error) => log('cancelling the run of a cancelled tool call failed', error),
    ...(deps.answerStream ? { answerStream: deps.answerStream } : {}),
  });
  if (deps.search) {
    registerSearchTool(server, {
      search: deps.search,
      ...(deps.grade ? { grade: deps.grade } : {}),
      scope,
      audited,
      onError: (error) => log('grading the evidence of a search failed; its relevance_level comes from the scores', error),
    });
  }
  registerResources(server, { rag, scope, ...(deps.kbStats ? { kbStats: deps.kbStats } : {}) });
  return server;
}
