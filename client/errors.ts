import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { WorkflowFailedError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal as proto } from '@temporalio/proto';
import { isRagError, RagError, RagErrorCode } from '../core/errors';

function applicationFailureIn(error: unknown): ApplicationFailure | null {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** gRPC status 5: the server has no such workflow (or, for an update, no running one). */
function isNotFound(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError || (error as { code?: number } | null)?.code === 5;
}

/** An answer to a run that has finished. (An app may also continue from its snapshot: `ask` with `resumeFrom`.) */
const finishedRun = (workflowId: string, cause: unknown) =>
  new RagError('NOT_AWAITING_INPUT', `run "${workflowId}" has finished; it takes no more answers (ask the question again to continue)`, { cause });

/**
 * Turns what the Temporal client throws into ragtime's closed error set, so an app handles one error type:
 * an unknown run, a run that is not waiting, or the workflow's own typed failure.
 */
export function toRagError(error: unknown, workflowId: string): RagError {
  if (error instanceof RagError) return error;
  // The server reports an update or signal sent to a closed run as "not found" with this message, but the run
  // exists: it has finished, so it is not waiting for an answer.
  if (isNotFound(error) && error instanceof Error && /already completed/i.test(error.message)) {
    return finishedRun(workflowId, error);
  }
  if (isNotFound(error)) {
    return new RagError('UNKNOWN_RUN', `no ragtime run with workflow id "${workflowId}"; check the id (ragtime runs lists them)`, { cause: error });
  }
  const failure = applicationFailureIn(error);
  if (failure && (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowFailedError)) {
    const code = RagErrorCode.safeParse(failure.type);
    return new RagError(code.success ? code.data : 'SERVICE_UNAVAILABLE', failure.message, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/already completed|workflow execution already|not running/i.test(message)) {
    return finishedRun(workflowId, error);
  }
  return new RagError('SERVICE_UNAVAILABLE', `Temporal call for "${workflowId}" failed: ${message}`, { cause: error });
}

/** A failure's message, decoded: with an encrypting codec, the message travels sealed (client/codec/failure-converter.ts). */
async function failureMessage(temporal: Client, failure: proto.api.failure.v1.IFailure): Promise<string | undefined> {
  const decoded = await decodeOptionalFailureToOptionalError(temporal.options.loadedDataConverter, failure);
  return decoded?.message ?? failure.message ?? undefined;
}

/** The messages of an error and its causes, outermost first. */
function messagesOf(error: unknown): string[] {
  const messages: string[] = [];
  for (let current = error; current instanceof Error && messages.length < 10; current = (current as { cause?: unknown }).cause) {
    messages.push(current.message);
  }
  return messages;
}

/**
 * When the server refuses an update because the run's workflow task keeps failing, the reason is on the worker's
 * side and recorded in the history (WorkflowTaskFailed). The usual one is a worker that cannot decrypt what this
 * client sent — the codec keys differ — which becomes a typed CODEC_KEY_UNKNOWN / PAYLOAD_DECRYPT_FAILED error
 * quoting the worker's message (key ids only); any other reason a SERVICE_UNAVAILABLE naming it. Null when the
 * error is of another kind.
 */
export async function explainWorkflowTaskFailure(temporal: Client, workflowId: string, error: unknown): Promise<RagError | null> {
  if (!messagesOf(error).some((message) => /workflow task in failed state/i.test(message))) return null;
  let reason: string | undefined;
  try {
    const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
    const failure = history.events?.flatMap((event) => event.workflowTaskFailedEventAttributes?.failure ?? []).at(-1);
    reason = failure && (await failureMessage(temporal, failure));
  } catch (caught) {
    // The worker's report is sealed with a key this client lacks: so the two hold different keys.
    if (isRagError(caught) && caught.code === 'CODEC_KEY_UNKNOWN') {
      return new RagError('CODEC_KEY_UNKNOWN', `the worker cannot run "${workflowId}" and this client cannot read why: ${caught.message.replace('this process', 'this client')}; the worker and this client hold different codec keys`, { cause: error });
    }
    // No history to read (e.g. no permission): the generic explanation below still names the likely cause.
  }
  if (reason !== undefined && /which this process does not hold/.test(reason)) {
    return new RagError('CODEC_KEY_UNKNOWN', `the worker cannot decrypt run "${workflowId}"; it reports: ${reason}`, { cause: error });
  }
  if (reason !== undefined && /failed authentication with key/.test(reason)) {
    return new RagError('PAYLOAD_DECRYPT_FAILED', `the worker cannot decrypt run "${workflowId}"; it reports: ${reason}`, { cause: error });
  }
  return new RagError(
    'SERVICE_UNAVAILABLE',
    `the worker fails run "${workflowId}" before it starts${reason === undefined ? '' : `: ${reason}`}; see the worker's log ` +
      '(a worker without this client\'s codec keys fails this way)',
    { cause: error },
  );
}
