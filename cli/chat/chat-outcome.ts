import type { RagOutcome } from '../../core/schemas/run-io';
import { renderAnswer } from '../render/answer';
import { shownStatus } from '../../core/run/shown-status';

/*
 * An outcome as `ragtime chat` shows it: compact, since a conversation scrolls. The answer with its sources first
 * (cli/render/answer.ts, as `ask` shows it), then one line with the route and the run, and on a follow-up one line
 * saying what the question was read as. `ragtime trace <run>` has the rest.
 */

const preview = (text: string, length: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return [...flat].length > length ? `${[...flat].slice(0, length - 1).join('')}…` : flat;
};

/** `route answer · run rag-… `, with what went wrong on a failed or degraded run. */
function runLine(outcome: RagOutcome): string {
  // A run cancelled or terminated says so (issue 43 §6), not just "failed".
  const status = outcome.status === 'completed' ? '' : `${shownStatus(outcome)} · `;
  const error = outcome.error ? ` · ${outcome.error.type}: ${preview(outcome.error.message, 160)}` : '';
  const degraded = outcome.degraded ? ` · DEGRADED: the knowledge base could not be read (${outcome.degraded.component})` : '';
  return `  ${status}route ${outcome.route ?? '-'} · run ${outcome.workflowId}${error}${degraded}`;
}

/** On a turn with earlier turns: what the question was read as, how, and why (null on a first turn). */
export function readAsLine(outcome: RagOutcome): string | null {
  const conversation = outcome.conversation;
  if (!conversation || conversation.turnsBefore === 0) return null;
  const turn = conversation.turnsBefore + 1;
  const read = conversation.standaloneQuestion === conversation.question ? 'as asked' : `as "${preview(conversation.standaloneQuestion, 120)}"`;
  return `  turn ${turn} read ${read} (${conversation.condensedBy}: ${preview(conversation.why, 100)})`;
}

/** The clarification a waiting run asks: its question and numbered options. */
export function clarificationLines(outcome: RagOutcome): string[] {
  if (!outcome.hitl) return [];
  return [`? ${outcome.hitl.prompt}`, ...outcome.hitl.options.map((option, i) => `  ${i + 1}. ${option}`)];
}

export function renderChatOutcome(outcome: RagOutcome, options: { answerTextShown?: boolean } = {}): string[] {
  const rendered = renderAnswer(outcome);
  // A streamed answer's text is on the screen already (issue 25 §2): its sources and checks follow.
  const answer = options.answerTextShown && outcome.answer && rendered[0] === outcome.answer.text ? rendered.slice(1) : rendered;
  // renderAnswer ends with a blank line to part the answer from what follows; here the run line follows at once.
  const body = answer.length > 0 && answer[answer.length - 1] === '' ? answer.slice(0, -1) : answer;
  const readAs = readAsLine(outcome);
  return [...body, runLine(outcome), ...(readAs ? [readAs] : [])];
}
