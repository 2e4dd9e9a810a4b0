import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { newRagWorkflowId, type RagClient } from '../../client/rag-client';
import { isRagError } from '../../core/errors';
import type { RagOutcome } from '../../core/schemas/run-io';
import type { KbStats } from '../../core/knowledge/knowledge-base';
import type { RetrievalResult } from '../../core/trace/writers';
import { ApiFailure } from '../http/api-failure';
import { elicitAnswers } from './elicit-answers';
import { followProgress } from './follow-progress';
import type { McpScope } from './mcp-scope';
import { projectOutcome, projectRetrieval } from './project-outcome';
import { AnswerClarificationInput, AskKnowledgeInput, GetRunInput, RunResult, SearchKnowledgeInput, SearchResult } from './tool-schemas';

export type McpServerDeps = {
  rag: RagClient;
  scope: McpScope;
  /** Throws (SERVICE_UNAVAILABLE) when no worker polls the task queue, before a run is started or answered. */
  workerCheck?: () => Promise<void>;
  /** One in-process retrieval (`ragtime search`); without it search_knowledge is not offered. */
  search?: (query: string, kb: string | undefined) => Promise<{ kb: string; result: RetrievalResult }>;
  /** A knowledge base's stats (documents, chunks, last ingestion); without it the ragtime://kb/{name} resource is not offered. */
  kbStats?: (kb: string) => Promise<KbStats>;
  /**
   * Whether to ask the person through MCP form elicitation when the client declares it (default true). Off for the
   * stateless Streamable HTTP endpoint, which has no channel for a server-to-client request during a call.
   */
  elicitation?: boolean;
  version?: string;
};

const DEFAULT_TOP_K = 5;

/** A tool failure an agent can act on: the closed code, then the message that states the rule and the fix. */
function failure(error: unknown): Error {
  if (isRagError(error)) return new Error(`${error.code}: ${error.message}`, { cause: error });
  if (error instanceof ApiFailure) return new Error(`${error.code}: ${error.message}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw failure(error);
  }
}

/** A structured result, with its JSON as text too (the MCP spec asks for both, for clients without structure). */
const result = <T extends Record<string, unknown>>(structured: T) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(structured, null, 2) }],
  structuredContent: structured,
});

type ToolExtra = { _meta?: { progressToken?: string | number }; sendNotification: (notification: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; message: string } }) => Promise<void> };

/** The run's progress steps as MCP progress notifications, when the caller asked for them (a progressToken). */
function tracked<T>(rag: RagClient, workflowId: string, extra: ToolExtra, pending: Promise<T>): Promise<T> {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return pending;
  return followProgress(pending, () => rag.getProgress(workflowId), (progress, message) =>
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }),
  );
}

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
  const workerCheck = deps.workerCheck ?? (async () => undefined);
  const askPerson = deps.elicitation === false ? async (outcome: RagOutcome) => ({ outcome, elicited: 0 }) : (outcome: RagOutcome, signal: AbortSignal) => elicitAnswers(server, rag, outcome, signal);
  const server = new McpServer({ name: 'ragtime', version: deps.version ?? '0.1.0' }, { capabilities: { tools: {}, resources: {} } });

  server.registerTool(
    'ask_knowledge',
    {
      title: 'Ask the knowledge base',
      description:
        'Ask a question of the knowledge base and get a grounded answer. ragtime retrieves evidence, grades it and ' +
        'either answers with citations (route "answer"), reports that the knowledge base holds nothing on it (route ' +
        '"no_knowledge" — a normal result: say so rather than guess), or needs the person to clarify (status ' +
        '"awaiting_input", route "clarify" or "scope_select"). When the client supports elicitation the person is asked ' +
        'directly; otherwise the result carries the prompt, the options and the run_id: ask the person and call ' +
        'answer_clarification. "degraded" set means the knowledge base could not be read, so "no_knowledge" is unproven.',
      inputSchema: AskKnowledgeInput,
      outputSchema: RunResult,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ question, kb, session }, extra) =>
      guarded(async () => {
        const sessionId = await scope.sessionOf(session);
        const kbName = scope.kbOf(kb);
        await workerCheck();
        const workflowId = newRagWorkflowId(sessionId);
        const first = await tracked(rag, workflowId, extra, rag.ask(question, { sessionId, workflowId, ...(kbName === undefined ? {} : { kb: kbName }) }));
        const { outcome, elicited } = await askPerson(first, extra.signal);
        return result(projectOutcome(outcome, elicited));
      }),
  );

  server.registerTool(
    'answer_clarification',
    {
      title: 'Answer a clarification',
      description:
        'Continue a run that waits for the person (status "awaiting_input" from ask_knowledge or get_run) with their ' +
        'answer: free text, or the 1-based number of one of the offered options. Returns the run’s next result — an ' +
        'answer, no_knowledge, or another question. The run is durable: it waits for days and survives restarts, so ' +
        'the answer may come long after the question.',
      inputSchema: AnswerClarificationInput,
      outputSchema: RunResult,
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ run_id, answer }, extra) =>
      guarded(async () => {
        await scope.assertRun(run_id);
        await workerCheck();
        const next = await tracked(rag, run_id, extra, rag.answer(run_id, answer));
        const { outcome, elicited } = await askPerson(next, extra.signal);
        return result(projectOutcome(outcome, elicited));
      }),
  );

  server.registerTool(
    'get_run',
    {
      title: 'Read a run',
      description:
        'Read where a run stands: status (running, awaiting_input, completed, failed), route, retrieval status, the ' +
        'answer or the pending question, and bounded evidence. Use it to pick up a run after a restart or from another ' +
        'conversation; trace_uri names the full normalized trace resource.',
      inputSchema: GetRunInput,
      outputSchema: RunResult,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ run_id }) =>
      guarded(async () => {
        await scope.assertRun(run_id);
        return result(projectOutcome(await rag.getOutcome(run_id)));
      }),
  );

  const { search } = deps;
  if (search) {
    server.registerTool(
      'search_knowledge',
      {
        title: 'Search the knowledge base',
        description:
          'Retrieve evidence for a query without asking the engine to answer: up to top_k passages (text, source file, ' +
          'page, score) and a relevance_level — "none" when nothing matched, "high"/"medium"/"low" from the reranker, ' +
          '"unranked" when no reranker scored them, "unavailable" when the knowledge base could not be read. Use it to ' +
          'gather context you will reason over yourself; use ask_knowledge for an answer with citations.',
        inputSchema: SearchKnowledgeInput,
        outputSchema: SearchResult,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ query, kb, top_k }) =>
        guarded(async () => {
          const found = await search(query, scope.kbOf(kb));
          return result(projectRetrieval(found.result, found.kb, top_k ?? DEFAULT_TOP_K));
        }),
    );
  }

  server.registerResource(
    'run-trace',
    new ResourceTemplate('ragtime://runs/{id}/trace', { list: undefined }),
    { title: 'Run trace', description: 'The normalized trace of a run (spec §5.6), as JSON.', mimeType: 'application/json' },
    async (uri, variables) =>
      guarded(async () => {
        const id = decodeURIComponent(String(variables.id));
        await scope.assertRun(id);
        const trace = await rag.getTrace(id);
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(trace, null, 2) }] };
      }),
  );
  const { kbStats } = deps;
  if (kbStats) {
    server.registerResource(
      'kb-stats',
      new ResourceTemplate('ragtime://kb/{name}', { list: undefined }),
      { title: 'Knowledge base stats', description: 'Documents, chunks per level, bytes and the last ingestion of a knowledge base, as JSON.', mimeType: 'application/json' },
      async (uri, variables) =>
        guarded(async () => {
          // The scope decides which names the caller may read (a tenant's own; locally any valid name).
          const kb = scope.kbOf(decodeURIComponent(String(variables.name))) ?? decodeURIComponent(String(variables.name));
          return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await kbStats(kb), null, 2) }] };
        }),
    );
  }
  return server;
}
