import { randomBytes } from 'node:crypto';

/** A new conversation's session id: `chat-` and 8 hex digits, short enough to type back with `--session`. */
export function newChatSessionId(): string {
  return `chat-${randomBytes(4).toString('hex')}`;
}
