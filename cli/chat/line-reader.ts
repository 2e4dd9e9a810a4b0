import { createInterface } from 'node:readline';

/*
 * The lines of `ragtime chat` and its Ctrl-C (issue 25 §1). One readline for the whole chat, so that on a terminal the
 * up arrow recalls earlier lines, and the lines a pipe delivers all at once are queued, none lost between prompts:
 * when input is piped, every line is read in order (a question, or the answer to a waiting run) and the end of input
 * ends the chat.
 *
 * Ctrl-C is one event with two meanings: while a line is asked for, it is that prompt's answer (`interrupt`); while a
 * run is going, it goes to whoever listens (`onInterrupt`: the loop detaches from the run). On a terminal readline
 * reports it (raw mode: no signal reaches the process); with piped input the process gets SIGINT.
 */

// Piped lines are echoed after their prompt; one far too long to ask is shown in part (its error says how long).
const ECHO_LENGTH = 300;
const echo = (prompt: string, line: string): string => `${prompt}${[...line].length > ECHO_LENGTH ? `${[...line].slice(0, ECHO_LENGTH - 1).join('')}…` : line}\n`;

export type LineEvent = { kind: 'line'; text: string } | { kind: 'interrupt' } | { kind: 'end' };

export type LineReader = {
  /** True on a terminal: prompts are shown, and the loop shows live progress. */
  readonly terminal: boolean;
  /** Shows `prompt` and resolves with the next line, Ctrl-C, or the end of input (Ctrl-D). */
  next(prompt: string): Promise<LineEvent>;
  /** Calls `listener` on each Ctrl-C that comes while no line is asked for, until the returned function is called. */
  onInterrupt(listener: () => void): () => void;
  close(): void;
};

export function createLineReader(input: NodeJS.ReadableStream & { isTTY?: boolean }, output: NodeJS.WritableStream): LineReader {
  const terminal = Boolean(input.isTTY);
  const rl = createInterface({ input, output, terminal, historySize: terminal ? 100 : 0 });
  const queued: string[] = [];
  let ended = false;
  let waiting: ((event: LineEvent) => void) | null = null;
  const listeners = new Set<() => void>();

  const settle = (event: LineEvent) => {
    const resolve = waiting;
    waiting = null;
    resolve?.(event);
  };
  rl.on('line', (line) => (waiting ? settle({ kind: 'line', text: line }) : queued.push(line)));
  rl.on('close', () => {
    ended = true;
    settle({ kind: 'end' });
  });
  const interrupt = () => {
    if (waiting) {
      // Ctrl-C on a line already typed clears it, as a shell does, and asks again; on an empty one it is the answer.
      if (terminal && rl.line !== '') {
        rl.write(null, { ctrl: true, name: 'e' });
        rl.write(null, { ctrl: true, name: 'u' });
        output.write('^C\n');
        rl.prompt();
        return;
      }
      if (terminal) output.write('^C\n');
      settle({ kind: 'interrupt' });
      return;
    }
    for (const listener of [...listeners]) listener();
  };
  rl.on('SIGINT', interrupt);
  // Piped input: Ctrl-C in the terminal the pipe runs in is a signal to the process; handled as on a terminal.
  if (!terminal) process.on('SIGINT', interrupt);

  return {
    terminal,
    next(prompt) {
      const line = queued.shift();
      if (line !== undefined) {
        // Piped: the prompt and the line are printed together, so the output reads as the conversation it was.
        if (!terminal) output.write(echo(prompt, line));
        return Promise.resolve({ kind: 'line', text: line });
      }
      if (ended) return Promise.resolve({ kind: 'end' });
      return new Promise<LineEvent>((resolve) => {
        waiting = (event) => {
          if (!terminal && event.kind === 'line') output.write(echo(prompt, event.text));
          resolve(event);
        };
        if (terminal) {
          rl.setPrompt(prompt);
          rl.prompt();
        }
      });
    },
    onInterrupt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      if (!terminal) process.removeListener('SIGINT', interrupt);
      listeners.clear();
      rl.close();
    },
  };
}
