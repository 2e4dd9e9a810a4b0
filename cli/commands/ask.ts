import type { Command } from 'commander';
import { RagError, describeZodError } from '../../core/errors';
import { RagWorkflowInput, type RagOutcome } from '../../core/schemas/run-io';
import { newRagWorkflowId, newSessionId } from '../../client/rag-client';
import type { CliContext } from '../context';
import { tenantRuns } from '../tenant-runs';
import { readAnswer, terminalLine } from '../prompt-answer';
import { followRun, type RunListener } from '../../client/follow-run';
import { answerStreamPrinter } from '../render/answer-stream';
import { renderStep } from '../render/progress';
import { exitCodeOf, renderOutcome } from '../render/outcome';
import { collect, FILTER_HELP, filtersOfFlags } from '../filter-flags';

type AskFlags = { session?: string; kb?: string; filter?: string[]; json?: boolean; interactive?: boolean; stream?: boolean; quiet?: boolean };

/** The person's answer at the terminal, or null when they left it waiting (cli/prompt-answer.ts). */
async function promptForAnswer(outcome: RagOutcome): Promise<string | null> {
  const terminal = terminalLine();
  try {
    return await readAnswer(outcome.hitl?.options ?? [], terminal.askLine, (line) => console.log(line));
  } finally {
    terminal.close();
  }
}

export function registerAsk(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('ask')
    .description('ask a question; shows live progress and, on a terminal, asks you when the run needs an answer')
    .argument('<question>', 'the question (1–2,000 characters)')
    .option('--session <id>', 'continue this conversation (a follow-up is read with its earlier turns); default: a new one, ask-<12 hex>')
    .option('--kb <name>', "knowledge base to read (default RAGTIME_KB, else MILVUS_COLLECTION, else the worker's)")
    .option('--filter <key=value>', FILTER_HELP, collect)
    .option('--json', 'print the outcome as JSON and exit (no prompting)')
    .option('--no-interactive', 'do not prompt for answers; exit 3 when the run waits')
    .option('--stream', 'print the answer as it is written (the default on a terminal)')
    .option('--no-stream', 'print the answer only once the run has it')
    .option('--quiet', 'print no progress steps (on a terminal they are shown as they come; otherwise on stderr)')
    .action(async (question: string, flags: AskFlags) => {
      // Bad input is refused before any connection, so it exits 2 whatever the state of the services.
      // No --session: a conversation of its own (issue 33 §2), never the earlier questions of this shell.
      const sessionId = flags.session ?? newSessionId('ask');
      const filters = filtersOfFlags(flags.filter);
      const input = RagWorkflowInput.safeParse({ question, sessionId, ...filters });
      if (!input.success) {
        // Name what is wrong: the question, or the --session value (issue 14 §13).
        const what = input.error.issues[0]?.path[0] === 'sessionId' ? 'invalid --session' : 'invalid question';
        throw new RagError('INVALID_INPUT', describeZodError(what, input.error));
      }
      const kb = await context.startableKbOf(flags.kb);
      const rag = await context.clientWithWorker();
      // RAGTIME_TENANT (`make demo`: its console's): the session is that tenant's, so the console shows the run.
      const tenant = tenantRuns(context.config, context.host);
      try {
        await tenant.claim(sessionId);
      } finally {
        await tenant.close();
      }
      const workflowId = newRagWorkflowId(sessionId);
      // Issue 25 §2: the answer as it is written, on a terminal or when asked; never with --json.
      const streaming = !flags.json && (flags.stream ?? Boolean(process.stdout.isTTY));
      const reader = streaming ? context.host.openAnswerStream(context.config) : null;
      const printer = answerStreamPrinter((text) => process.stdout.write(text));
      // Live progress, each step once across rounds, read in one loop with the answer (issue 33 §3): on a terminal
      // with the answer; otherwise (a pipe, a script) one line per step on stderr as it comes, so a slow model is seen
      // working and stdout holds the outcome alone (issue 43 §6). --json keeps stderr for errors only; --quiet: none.
      const printed = new Set<string>();
      const showStep = flags.json || flags.quiet ? null : process.stdout.isTTY ? (line: string) => printer.line(line) : (line: string) => void process.stderr.write(`${line}\n`);
      const listener: RunListener = {
        ...(showStep ? { steps: { onStep: (step) => showStep(renderStep(step)), seen: printed } } : {}),
        ...(reader ? { answer: { reader, onMessage: (message) => printer.onMessage(message) } } : {}),
      };
      const follow = (pending: Promise<RagOutcome>) => (listener.steps || listener.answer ? followRun(pending, rag, workflowId, listener) : pending);
      let outcome = await follow(rag.ask(question, { sessionId, workflowId, ...tenant.askOptions, ...(kb === undefined ? {} : { kb }), ...filters }));
      const interactive = !flags.json && flags.interactive !== false && process.stdin.isTTY;
      while (interactive && outcome.status === 'awaiting_input') {
        console.log(renderOutcome(outcome, context.uiBaseUrl));
        const answer = await promptForAnswer(outcome);
        if (answer === null) {
          console.log(`\nleft waiting; answer it later with: ragtime answer ${workflowId} "<your answer>"`);
          setExit(exitCodeOf(outcome));
          return;
        }
        outcome = await follow(rag.answer(workflowId, answer));
      }
      await reader?.close();
      const rendered = renderOutcome(outcome, context.uiBaseUrl, { answerTextShown: printer.showedRecord });
      console.log(flags.json ? JSON.stringify(outcome, null, 2) : rendered);
      setExit(exitCodeOf(outcome));
    });
}
