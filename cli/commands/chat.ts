import type { Command } from 'commander';
import { newRagWorkflowId } from '../../client/rag-client';
import { answerStreamPrinter } from '../render/answer-stream';
import type { CliContext } from '../context';
import { reportError } from '../errors';
import { checkedSessionId, runChat, type ChatDeps } from '../chat/chat-loop';
import { tenantRuns } from '../tenant-runs';
import { createLineReader } from '../chat/line-reader';
import { newChatSessionId } from '../chat/session-id';
import { collect, FILTER_HELP, filtersOfFlags } from '../filter-flags';

type ChatFlags = { session?: string; kb?: string; filter?: string[] };


export function registerChat(program: Command, context: CliContext, setExit: (code: number) => void, verbose: boolean): void {
  program
    .command('chat')
    .description('a conversation: each line is asked in the session, follow-ups read with the earlier turns; clarifications answered inline')
    .option('--session <id>', 'continue this session (its earlier turns are shown first); default: a new one, chat-<8 hex>')
    .option('--kb <name>', "knowledge base to read (default RAGTIME_KB, else MILVUS_COLLECTION, else the worker's)")
    .option('--filter <key=value>', `${FILTER_HELP} (every question of the conversation)`, collect)
    .action(async (flags: ChatFlags) => {
      // Bad input is refused before any connection, as `ask` refuses it (exit 2).
      const filters = filtersOfFlags(flags.filter);
      const continued = flags.session === undefined ? null : checkedSessionId(flags.session);
      const kb = await context.startableKbOf(flags.kb);
      const rag = await context.clientWithWorker();
      // RAGTIME_TENANT (`make demo`: its console's): each session is that tenant's and its turns are kept under it,
      // so the console shows the conversation; a continued session another tenant owns is refused here (exit 2).
      // Without one, the runs of the CLI have no tenant (client/rag-client.ts AskOptions.tenant): turns under ''.
      const tenant = tenantRuns(context.config, context.host);
      try {
        if (continued !== null) await tenant.claim(continued);
      } catch (error) {
        await tenant.close();
        throw error;
      }
      const tenantRag: ChatDeps['rag'] = {
        ask: async (question, options) => {
          await tenant.claim(options.sessionId);
          return rag.ask(question, { ...options, ...tenant.askOptions, ...filters });
        },
        answer: (workflowId, text) => rag.answer(workflowId, text),
        getProgress: (workflowId) => rag.getProgress(workflowId),
        getAnswerStream: (workflowId) => rag.getAnswerStream(workflowId),
      };
      const turns = context.host.openSessionTurns(context.config);
      const reader = createLineReader(process.stdin, process.stdout);
      // The answer as it is written, on a terminal (issue 25 §2); piped, the conversation prints each answer once.
      const answers = reader.terminal && process.stdout.isTTY ? context.host.openAnswerStream(context.config) : null;
      const stream = answers ? { reader: answers, printer: () => answerStreamPrinter((text) => process.stdout.write(text)) } : undefined;
      try {
        setExit(
          await runChat(
            {
              rag: tenantRag,
              turnsOf: (sessionId) => turns.turnsOf(tenant.tenant ?? '', sessionId),
              reader,
              say: (line) => console.log(line),
              report: (error) => void reportError(error, verbose),
              newSessionId: newChatSessionId,
              newWorkflowId: newRagWorkflowId,
              ...(kb === undefined ? {} : { kb }),
              sessionTurns: context.config.conversation.sessionTurns,
              // Live progress on a terminal only: piped, the output is the conversation alone.
              progress: reader.terminal && Boolean(process.stdout.isTTY),
              ...(stream ? { stream } : {}),
            },
            continued,
          ),
        );
      } finally {
        reader.close();
        await tenant.close();
        await turns.close();
        await answers?.close();
      }
    });
}
