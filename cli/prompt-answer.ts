import { createInterface } from 'node:readline/promises';
import { RagError } from '../core/errors';
import { answerForOptions } from '../core/run/option-answer';
import { HitlAnswer } from '../core/schemas/run-io';

/*
 * The person's answer at the terminal (issue 14 §9): a number picks an option, a number that names none and an empty
 * line ask again, and Ctrl-C or Ctrl-D leave the run waiting (null: the caller prints how to answer later).
 */

/** One line from the person, or null when they left (Ctrl-C, Ctrl-D). */
export type AskLine = (prompt: string) => Promise<string | null>;

export async function readAnswer(options: readonly string[], askLine: AskLine, say: (line: string) => void): Promise<string | null> {
  const prompt = options.length > 0 ? `your answer (1–${options.length} or text): ` : 'your answer: ';
  for (;;) {
    const line = await askLine(prompt);
    if (line === null) return null;
    if (line.trim() === '') continue;
    try {
      const answer = answerForOptions(line, options);
      const checked = HitlAnswer.safeParse(answer);
      if (checked.success) return answer;
      say(checked.error.issues[0]?.message ?? 'that answer cannot be sent');
    } catch (error) {
      if (!(error instanceof RagError)) throw error;
      say(error.message.replace(/; nothing was sent$/, ''));
    }
  }
}

/** An AskLine on the process' terminal: resolves null on Ctrl-C or at the end of input. */
export function terminalLine(): { askLine: AskLine; close: () => void } {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const left = new AbortController();
  rl.on('SIGINT', () => left.abort());
  rl.on('close', () => left.abort());
  return {
    askLine: async (prompt) => {
      if (left.signal.aborted) return null;
      try {
        return await rl.question(prompt, { signal: left.signal });
      } catch {
        return null;
      }
    },
    close: () => rl.close(),
  };
}
