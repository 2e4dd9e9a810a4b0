/*
 * What a line typed in `ragtime chat` means: a command (`/exit`, `/quit`, `/new`, `/history`), nothing (an empty
 * line), or a question to ask in the session. Pure, so the loop only acts on it.
 */

export type ChatLine =
  | { kind: 'empty' }
  | { kind: 'exit' }
  | { kind: 'new' }
  | { kind: 'history' }
  | { kind: 'unknown_command'; command: string }
  | { kind: 'question'; text: string };

/** The commands, as the chat's help line lists them. */
export const CHAT_COMMANDS = '/history (this session\'s turns), /new (a new session), /exit or /quit (Ctrl-D)';

const COMMANDS: Record<string, ChatLine> = {
  '/exit': { kind: 'exit' },
  '/quit': { kind: 'exit' },
  '/new': { kind: 'new' },
  '/history': { kind: 'history' },
};

export function parseChatLine(line: string): ChatLine {
  const text = line.trim();
  if (text === '') return { kind: 'empty' };
  // A single word starting with "/" is a command; "/etc/hosts 是什么？" is a question that happens to start with one.
  if (/^\/[a-z]+$/i.test(text)) return COMMANDS[text.toLowerCase()] ?? { kind: 'unknown_command', command: text };
  // The question as typed (not trimmed): the run's own validation trims it and says what is wrong with it.
  return { kind: 'question', text: line };
}
