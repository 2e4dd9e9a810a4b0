import { z } from 'zod';
import { RagError, describeZodError } from '../../core/errors';
import type { RagStep } from '../../core/progress/rag-step';
import type { SessionTurn } from '../../core/schemas/conversation';
import { RagWorkflowInput, SessionId, type RagOutcome } from '../../core/schemas/run-io';
import { readAnswer } from '../prompt-answer';
import { followRun, type RunListener } from '../../client/follow-run';
import type { AnswerStreamReader } from '../../client/read-answer-stream';
import type { AnswerStreamState } from '../../workflows/messages';
import type { StreamPrinter } from '../render/answer-stream';
import { renderStep } from '../render/progress';
import { CHAT_COMMANDS, parseChatLine } from './chat-line';
import { clarificationLines, renderChatOutcome } from './chat-outcome';
import type { LineReader } from './line-reader';
import { renderTurns } from './turns-printer';

/*
 * `ragtime chat` (issue 25 §1): a conversation in a session. Each line is asked in the session, so a follow-up is read
 * with the earlier turns; a clarification is answered on the same line reader; Ctrl-C during a run detaches from it
 * (the run goes on) and Ctrl-C or Ctrl-D at the prompt ends the chat. Everything it talks to comes in as `ChatDeps`,
 * so tests drive it with a fake client and scripted lines.
 */

export type ChatDeps = {
  rag: {
    ask(question: string, options: { sessionId: string; workflowId: string; kb?: string }): Promise<RagOutcome>;
    answer(workflowId: string, text: string): Promise<RagOutcome>;
    getProgress(workflowId: string): Promise<RagStep[]>;
    getAnswerStream(workflowId: string): Promise<AnswerStreamState>;
  };
  /** The session's recorded turns, oldest first (under the CLI's tenant: RAGTIME_TENANT, else ''). */
  turnsOf(sessionId: string): Promise<SessionTurn[]>;
  reader: LineReader;
  say(line: string): void;
  /** Prints an error the way the CLI reports one (`ragtime: CODE: message`); the chat goes on. */
  report(error: unknown): void;
  newSessionId(): string;
  newWorkflowId(sessionId: string): string;
  kb?: string;
  /** SESSION_TURNS: how many earlier turns are shown when a session is continued. */
  sessionTurns: number;
  /** Live progress lines while a run is going (a terminal only). */
  progress: boolean;
  /**
   * The answer as it is written (issue 25 §2): where its text is read, and a printer per run that shows it while it
   * comes and knows whether the screen shows the record's text already. Absent: the answer is printed at the end.
   */
  stream?: { reader: AnswerStreamReader; printer(): StreamPrinter };
};

const PROMPT = '> ';

/** A question refused before anything starts, with the error `ask` gives for it. */
function checkQuestion(question: string, sessionId: string): void {
  const input = RagWorkflowInput.safeParse({ question, sessionId });
  if (!input.success) throw new RagError('INVALID_INPUT', describeZodError('invalid question', input.error));
}

/** A --session value as `ask` checks it (the same message, at sessionId), before anything connects. */
export function checkedSessionId(value: string): string {
  const parsed = z.object({ sessionId: SessionId }).safeParse({ sessionId: value });
  if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError('invalid --session', parsed.error));
  return parsed.data.sessionId;
}

/** Runs the chat until /exit, Ctrl-C or Ctrl-D at the prompt, or the end of input; resolves to the exit code. */
export async function runChat(deps: ChatDeps, continued: string | null): Promise<number> {
  const { rag, reader, say } = deps;
  let session = continued ?? deps.newSessionId();

  const announceNew = () => say(`new session ${session}; continue it later with: ragtime chat --session ${session}`);
  const showTurns = async (show?: number) => {
    try {
      for (const line of renderTurns(session, await deps.turnsOf(session), show)) say(line);
    } catch (error) {
      deps.report(error);
    }
  };
  const goodbye = () => {
    say(`continue this conversation with: ragtime chat --session ${session}`);
    return 0;
  };

  let answerShown = false;
  /** The outcome of `pending`, or null when the person pressed Ctrl-C first (the run goes on without us). */
  const follow = async (pending: Promise<RagOutcome>, workflowId: string, printed: Set<string>): Promise<RagOutcome | null> => {
    let detached = false;
    // The steps and the answer in one loop, in the order they happened (issue 33 §3).
    const printer = deps.stream?.printer();
    const listener: RunListener = {
      ...(deps.progress ? { steps: { onStep: (step: RagStep) => void (detached || (printer ? printer.line(renderStep(step)) : say(renderStep(step)))), seen: printed } } : {}),
      ...(deps.stream && printer ? { answer: { reader: deps.stream.reader, onMessage: (message: Parameters<StreamPrinter['onMessage']>[0]) => detached || printer.onMessage(message) } } : {}),
    };
    const shown = listener.steps || listener.answer
      ? followRun(pending, rag, workflowId, listener).then((outcome) => {
          answerShown = printer?.showedRecord ?? false;
          return outcome;
        })
      : pending;
    let stop: () => void = () => undefined;
    const interrupted = new Promise<null>((resolve) => {
      stop = deps.reader.onInterrupt(() => resolve(null));
    });
    try {
      const first = await Promise.race([shown, interrupted]);
      if (first === null) {
        detached = true;
        // What the run does next no longer concerns this chat; its failure is reported by `ragtime trace`.
        shown.catch(() => undefined);
        say(`detached from run ${workflowId}; it goes on: ragtime trace ${workflowId}`);
      }
      return first;
    } finally {
      stop();
    }
  };

  /** One question of the session, with its clarifications answered inline. False when the input ended meanwhile. */
  const ask = async (question: string): Promise<boolean> => {
    checkQuestion(question, session);
    const workflowId = deps.newWorkflowId(session);
    const printed = new Set<string>();
    let outcome = await follow(rag.ask(question, { sessionId: session, workflowId, ...(deps.kb === undefined ? {} : { kb: deps.kb }) }), workflowId, printed);
    let ended = false;
    while (outcome?.status === 'awaiting_input') {
      for (const line of clarificationLines(outcome)) say(line);
      const answer = await readAnswer(outcome.hitl?.options ?? [], async (prompt) => {
        const event = await reader.next(prompt);
        if (event.kind === 'end') ended = true;
        return event.kind === 'line' ? event.text : null;
      }, say);
      if (answer === null) {
        say(`left waiting; answer it later with: ragtime answer ${workflowId} "<your answer>"`);
        return !ended;
      }
      outcome = await follow(rag.answer(workflowId, answer), workflowId, printed);
    }
    if (outcome) for (const line of renderChatOutcome(outcome, { answerTextShown: answerShown })) say(line);
    answerShown = false;
    return true;
  };

  if (continued === null) announceNew();
  else await showTurns(deps.sessionTurns);
  say(`ask a question; ${CHAT_COMMANDS}`);

  for (;;) {
    const event = await reader.next(PROMPT);
    if (event.kind !== 'line') {
      if (reader.terminal && event.kind === 'end') say('');
      return goodbye();
    }
    const line = parseChatLine(event.text);
    switch (line.kind) {
      case 'empty':
        continue;
      case 'exit':
        return goodbye();
      case 'new':
        session = deps.newSessionId();
        announceNew();
        continue;
      case 'history':
        await showTurns();
        continue;
      case 'unknown_command':
        say(`unknown command ${line.command}; the commands are ${CHAT_COMMANDS}`);
        continue;
      case 'question':
        try {
          if (!(await ask(line.text))) return goodbye();
        } catch (error) {
          deps.report(error);
        }
        say('');
    }
  }
}
