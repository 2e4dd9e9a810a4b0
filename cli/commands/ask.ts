import type { Command } from 'commander';
import { RagError, describeZodError } from '../../core/errors';
import { RagWorkflowInput, type RagOutcome } from '../../core/schemas/run-io';
import { newRagWorkflowId, type RagClient } from '../../client/rag-client';
import type { CliContext } from '../context';
import { readAnswer, terminalLine } from '../prompt-answer';
import { followAnswer } from '../../client/follow-answer';
import { answerStreamPrinter } from '../render/answer-stream';
import { followProgress } from '../render/progress';
import { exitCodeOf, renderOutcome } from '../render/outcome';

type AskFlags = { session: string; kb?: string; json?: boolean; interactive?: boolean; stream?: boolean };

/** The person's answer at the terminal, or null when they left it waiting (cli/prompt-answer.ts). */
async function promptForAnswer(outcome: RagOutcome): Promise<string | null> {
  const terminal = terminalLine();
  try {
    return await readAnswer(outcome.hitl?.options ?? [], terminal.askLine, (line) => console.log(line));
  } finally {
    terminal.close();
  }
}

/** Live progress of one run on a terminal, across its rounds: each step once, also after an answer. */
function progressPrinter(rag: RagClient, workflowId: string, enabled: boolean) {
  const printed = new Set<string>();
  return (pending: Promise<RagOutcome>): Promise<RagOutcome> =>
    enabled ? followProgress(pending, () => rag.getProgress(workflowId), (line) => console.log(line), { printed }) : pending;
}

export function registerAsk(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('ask')
    .description('ask a question; shows live progress and, on a terminal, asks you when the run needs an answer')
    .argument('<question>', 'the question (1–2,000 characters)')
    .option('--session <id>', 'session id', 'cli')
    .option('--kb <name>', "knowledge base to read (default RAGTIME_KB, else MILVUS_COLLECTION, else the worker's)")
    .option('--json', 'print the outcome as JSON and exit (no prompting)')
    .option('--no-interactive', 'do not prompt for answers; exit 3 when the run waits')
    .option('--stream', 'print the answer as it is written (the default on a terminal)')
    .option('--no-stream', 'print the answer only once the run has it')
    .action(async (question: string, flags: AskFlags) => {
      // Bad input is refused before any connection, so it exits 2 whatever the state of the services.
      const input = RagWorkflowInput.safeParse({ question, sessionId: flags.session });
      if (!input.success) {
        // Name what is wrong: the question, or the --session value (issue 14 §13).
        const what = input.error.issues[0]?.path[0] === 'sessionId' ? 'invalid --session' : 'invalid question';
        throw new RagError('INVALID_INPUT', describeZodError(what, input.error));
      }
      const kb = context.runKbOf(flags.kb);
      const rag = await context.clientWithWorker();
      const workflowId = newRagWorkflowId(flags.session);
      const withProgress = progressPrinter(rag, workflowId, !flags.json && Boolean(process.stdout.isTTY));
      // Issue 25 §2: the answer as it is written, on a terminal or when asked; never with --json.
      const streaming = !flags.json && (flags.stream ?? Boolean(process.stdout.isTTY));
      const reader = streaming ? context.host.openAnswerStream(context.config) : null;
      const printer = answerStreamPrinter((text) => process.stdout.write(text));
      const withStream = (pending: Promise<RagOutcome>) =>
        reader ? followAnswer(pending, rag, workflowId, reader, (message) => printer.onMessage(message)) : pending;
      let outcome = await withProgress(withStream(rag.ask(question, { sessionId: flags.session, workflowId, ...(kb === undefined ? {} : { kb }) })));
      const interactive = !flags.json && flags.interactive !== false && process.stdin.isTTY;
      while (interactive && outcome.status === 'awaiting_input') {
        console.log(renderOutcome(outcome, context.uiBaseUrl));
        const answer = await promptForAnswer(outcome);
        if (answer === null) {
          console.log(`\nleft waiting; answer it later with: ragtime answer ${workflowId} "<your answer>"`);
          setExit(exitCodeOf(outcome));
          return;
        }
        outcome = await withProgress(withStream(rag.answer(workflowId, answer)));
      }
      await reader?.close();
      const rendered = renderOutcome(outcome, context.uiBaseUrl, { answerTextShown: printer.showedRecord });
      console.log(flags.json ? JSON.stringify(outcome, null, 2) : rendered);
      setExit(exitCodeOf(outcome));
    });
}
