import type { Command } from 'commander';
import { assertWorkerPolling } from '../../client/worker-check';
import { auditSqliteFileOf } from '../../runtime/data-files';
import type { CliContext } from '../context';

type McpFlags = { session?: string; kb?: string; search?: boolean };

/**
 * `ragtime mcp` (docs/MCP.md): ragtime as an agent's knowledge tool, the MCP server over stdio. An MCP client starts
 * it as a subprocess and speaks JSON-RPC on its stdin/stdout, so nothing else may be printed to stdout: console
 * output of this process (and of the stores the retriever loads) goes to stderr while it serves.
 */
export function registerMcp(program: Command, context: CliContext): void {
  program
    .command('mcp')
    .description('serve the MCP tools (ask_knowledge, answer_clarification, get_run, search_knowledge) over stdio until stdin closes')
    .option('--session <id>', 'one conversation for every run whose tool call names no session; default: each such run is a conversation of its own')
    .option('--kb <name>', "default knowledge base (default RAGTIME_KB, else MILVUS_COLLECTION, else the worker's)")
    .option('--no-search', 'do not offer search_knowledge (it opens the stores in this process on first use)')
    .action(async (flags: McpFlags) => {
      console.log = console.error;
      console.info = console.error;
      const { config } = context;
      const defaultKb = context.runKbOf(flags.kb);
      const rag = await context.client();
      const opened: { retriever?: ReturnType<CliContext['host']['openRetriever']>; knowledge?: ReturnType<CliContext['host']['openKnowledge']> } = {};
      try {
        await context.host.serveMcpStdio(rag, {
          ...(flags.session === undefined ? {} : { defaultSession: flags.session }),
          kbOf: (requested) => (requested === undefined ? defaultKb : context.kbOf(requested)),
          workerCheck: () => assertWorkerPolling(rag, config.temporal),
          // The workers' audit store: a session's tool calls sit beside its runs' rows in the Trace API.
          audit: { databaseUrl: config.database.url, sqliteFile: auditSqliteFileOf(config), includeContent: config.audit.includeContent },
          // ragtime://kb/{name}: opened on first read, like the retriever.
          kbStats: (kb) => (opened.knowledge ??= context.host.openKnowledge(config)).stats(kb),
          ...(flags.search === false
            ? {}
            : {
                // relevance_level from the configured grader (the worker's models), on the same adapters.
                grade: async (query, docs) => (await (opened.retriever ??= context.host.openRetriever(config)).grade?.(query, docs)) ?? null,
                async search(query, kb, filters) {
                  // Opened on first use: the stores' SDKs take a second to load, and most sessions only ask.
                  const retriever = (opened.retriever ??= context.host.openRetriever(config));
                  const name = kb ?? context.kbOf(undefined);
                  return { kb: name, result: await retriever.retrieve(query, name, filters ? { filters } : undefined) };
                },
              }),
        });
      } finally {
        await Promise.allSettled([opened.retriever?.close(), opened.knowledge?.close()]);
      }
    });
}
