import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RagClient } from '../../client/rag-client';
import type { RagOutcome } from '../../core/schemas/run-io';
import { ANSWER_MAX_LENGTH } from '../../core/schemas/run-io';

// A person reads and answers; the SDK's default request timeout (60 s) is too short for that. On timeout the run
// keeps waiting (it is durable), and the tool returns the question for answer_clarification.
const ELICIT_TIMEOUT_MS = 10 * 60_000;
// The workflow bounds its own rounds (hitl.maxRounds); this only stops a loop if a client answers forever.
const MAX_ELICITED_ROUNDS = 5;

/** True when the connected client declared form elicitation (an empty `elicitation: {}` means form, per the SDK). */
export function canElicit(server: McpServer): boolean {
  return server.server.getClientCapabilities()?.elicitation?.form !== undefined;
}

/**
 * While the run waits for a person and the client can ask one (MCP form elicitation, protocol 2025-06-18+), asks
 * through the client — the options as an enum — and sends the answer to the run. Returns the last outcome and how
 * many answers were given; a decline, a cancel, a timeout or a client error leave the run waiting, and the caller
 * returns the question (the answer_clarification fallback).
 */
export async function elicitAnswers(server: McpServer, rag: RagClient, first: RagOutcome, signal: AbortSignal): Promise<{ outcome: RagOutcome; elicited: number }> {
  let outcome = first;
  let elicited = 0;
  while (outcome.status === 'awaiting_input' && outcome.hitl !== null && elicited < MAX_ELICITED_ROUNDS && canElicit(server)) {
    const { prompt, options } = outcome.hitl;
    const answerField =
      options.length > 0
        ? { type: 'string' as const, title: 'Answer', description: 'Pick one', enum: options }
        : { type: 'string' as const, title: 'Answer', minLength: 1, maxLength: ANSWER_MAX_LENGTH };
    const reply = await server.server
      .elicitInput(
        { mode: 'form', message: prompt, requestedSchema: { type: 'object', properties: { answer: answerField }, required: ['answer'] } },
        { signal, timeout: ELICIT_TIMEOUT_MS },
      )
      .catch(() => null);
    const answer = reply?.action === 'accept' ? reply.content?.answer : undefined;
    if (typeof answer !== 'string') break;
    outcome = await rag.answer(outcome.workflowId, answer);
    elicited += 1;
  }
  return { outcome, elicited };
}
