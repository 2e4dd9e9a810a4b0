import { CITATION_CHECK_LABEL } from '../../core/answer/citation-check-text';
import { shownStep, type RagStep } from '../../core/progress/rag-step';
import type { AnswerStreamMessage } from '../../core/schemas/answer-stream';

/** A step as the message of an MCP progress notification: its label and detail as the asker reads them (shownStep). */
export const stepMessage = (step: RagStep): string => {
  const { label, detail } = shownStep(step);
  return `${step.group_label ? `${step.group_label}: ` : ''}${step.icon} ${label}${detail ? ` — ${detail}` : ''}`;
};

/**
 * A streaming answer's message as an MCP progress message (issue 25 §2). Progress notifications carry text only, so
 * each kind has its marker (✎, not the ✍️ of the answer step's label): `✎ ` + a piece of the answer, `✎⌫ ` when what
 * was shown is void (clear it), `✎📚 ` with the sources, `✎✔ ` at the end (the tool's result holds the recorded answer
 * with its citations).
 */
export function answerMessage(message: AnswerStreamMessage): string {
  switch (message.type) {
    case 'sources':
      return `✎📚 ${message.sources.map((source) => `[${source.n}] ${source.filename ?? '?'}`).join(' ')}`;
    case 'delta':
      return `✎ ${message.text}`;
    case 'discard':
      return `✎⌫ ${message.reason}`;
    case 'final':
      return `✎✔ ${CITATION_CHECK_LABEL[message.verification]}${message.replaced ? ' (the result holds the recorded answer, which differs from the text streamed)' : ''}`;
  }
}
