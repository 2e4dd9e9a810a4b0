import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { newRagWorkflowId, type RagClient } from '../../client/rag-client';
import { RagError } from '../../core/errors';
import type { RagOutcome } from '../../core/schemas/run-io';
import { type HiddenDocuments, isRedacted, redactForReader } from '../../core/knowledge/redact-for-reader';
import type { CallAuditor, CallNotes } from './audit-tool-call';
import { cancelRunOnAbort } from './cancel-run-on-abort';
import { answerMessage, stepMessage } from './follow-progress';
import type { AnswerStreamReader } from '../../client/follow-answer';
import { followRun } from '../../client/follow-run';
import type { AnswerStreamMessage } from '../../core/schemas/answer-stream';
import type { McpScope } from './mcp-scope';
import { projectOutcome } from './project-outcome';
import { guarded, result } from './tool-result';
import { AnswerClarificationInput, AskKnowledgeInput, CancelRunToolInput, GetRunInput, RunResult } from './tool-schemas';

export type RunToolDeps = {
  rag: RagClient;
  scope: McpScope;
  workerCheck: () => Promise<void>;
  audited: CallAuditor;
  /** While the run waits for a person: ask through the client (elicitation) when it can; else the outcome as it is. */
  askPerson: (outcome: RagOutcome, signal: AbortSignal) => Promise<{ outcome: RagOutcome; elicited: number }>;
  /** A failed cancellation of a run (logged). */
  onError: (error: unknown) => void;
  /** The side channel of streaming answers (issue 25 §2); without it the progress notifications carry the steps only. */
  answerStream?: AnswerStreamReader;
};

type ToolExtra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; message: string } }) => Promise<void>;
};

/**
 * The run's progress steps as MCP progress notifications, when the caller asked for them (a progressToken), and with
 * the side channel the answer as it is written (issue 25 §2: `answerMessage`). One counter for both: MCP requires
 * `progress` to increase with every notification.
 */
function tracked(rag: RagClient, workflowId: string, extra: ToolExtra, pending: Promise<RagOutcome>, hidden: HiddenDocuments, answerStream?: AnswerStreamReader): Promise<RagOutcome> {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return pending;
  let progress = 0;
  const notify = (message: string) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++progress, message } }).catch(() => undefined);
  // issue 44 §4: steps as the caller may see them; the answer's pieces stop once one names a document it may not read
  // (a run another token started: the result then says not_visible).
  let answerHidden = false;
  const onAnswer = (message: AnswerStreamMessage) => {
    answerHidden ||= isRedacted(message, redactForReader(message, hidden));
    if (!answerHidden) void notify(answerMessage(message));
  };
  // One loop reads the steps and the answer, so their notifications go out in the order they happened (issue 33 §3).
  return followRun(pending, rag, workflowId, {
    steps: { onStep: (step) => notify(stepMessage(redactForReader(step, hidden))) },
    ...(answerStream ? { answer: { reader: answerStream, onMessage: onAnswer } } : {}),
  });
}

/** How long cancel_run waits for the run to close before it reads the run (ms). */
const CANCEL_CLOSE_WAIT_MS = 5_000;

/**
 * ask_knowledge, answer_clarification, get_run and cancel_run: the tools over one durable run. A call that works on a run
 * (asks, answers, asks the person) cancels the run when the client cancels the call (issue 15 §1).
 */
export function registerRunTools(server: McpServer, deps: RunToolDeps): void {
  const { rag, scope, workerCheck, audited, askPerson } = deps;
  const connected = () => server.server.transport !== undefined;

  /** Works on run `workflowId` until `work` settles; a cancelled call cancels the run and is noted so. */
  async function onRun(workflowId: string, extra: ToolExtra, notes: CallNotes, work: () => Promise<RagOutcome>): Promise<RunResult> {
    if (extra.signal.aborted) throw new RagError('CANCELLED', 'the tool call was cancelled before it started');
    const watch = cancelRunOnAbort(extra.signal, connected, () => rag.cancel(workflowId), deps.onError);
    try {
      // issue 44 §4: the outcome as the caller's token may see it, before the person is asked or anything is projected.
      const first = await scope.view(await tracked(rag, workflowId, extra, work(), await scope.hidden(), deps.answerStream));
      notes.outcome = first;
      const asked = await askPerson(first, extra.signal);
      const outcome = await scope.view(asked.outcome);
      const { elicited } = asked;
      notes.outcome = outcome;
      notes.projected = projectOutcome(outcome, elicited);
      return notes.projected;
    } finally {
      await watch.done();
      notes.cancelled = watch.cancelled();
    }
  }

  server.registerTool(
    'ask_knowledge',
    {
      title: 'Ask the knowledge base',
      description:
        'Ask a question of the knowledge base and get a grounded answer. ragtime retrieves evidence, grades it and ' +
        'either answers with citations (route "answer"), reports that the knowledge base holds nothing on it (route ' +
        '"no_knowledge" — a normal result: say so rather than guess), or needs the person to clarify (status ' +
        '"awaiting_input", route "clarify" or "scope_select"). When the client supports elicitation the person is asked ' +
        'directly; otherwise the result carries the prompt, the options and the run_id: ask the person and call ' +
        'answer_clarification. "degraded" set means the knowledge base could not be read, so "no_knowledge" is unproven. ' +
        'Cancelling the call cancels the run.',
      inputSchema: AskKnowledgeInput,
      outputSchema: RunResult,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ question, kb, filters, session }, extra) =>
      guarded(() =>
        audited('ask_knowledge', async (notes) => {
          notes.text = question;
          const sessionId = await scope.sessionOf(session);
          notes.sessionId = sessionId;
          const kbName = scope.kbOf(kb);
          if (kbName !== undefined) notes.kb = kbName;
          await workerCheck();
          const workflowId = newRagWorkflowId(sessionId);
          notes.workflowId = workflowId;
          return result(await onRun(workflowId, extra, notes, () => rag.ask(question, { sessionId, workflowId, ...(scope.tenant ? { tenant: scope.tenant } : {}), ...(scope.access ? { access: scope.access } : {}), ...(kbName === undefined ? {} : { kb: kbName }), ...(filters ? { filters } : {}) })));
        }),
      ),
  );

  server.registerTool(
    'answer_clarification',
    {
      title: 'Answer a clarification',
      description:
        'Continue a run that waits for the person (status "awaiting_input" from ask_knowledge or get_run) with their ' +
        'answer: free text, or the 1-based number of one of the offered options. Returns the run’s next result — an ' +
        'answer, no_knowledge, or another question. The run is durable: it waits for days and survives restarts, so ' +
        'the answer may come long after the question. Cancelling the call cancels the run.',
      inputSchema: AnswerClarificationInput,
      outputSchema: RunResult,
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ run_id, answer }, extra) =>
      guarded(() =>
        audited('answer_clarification', async (notes) => {
          notes.text = answer;
          notes.workflowId = run_id;
          notes.sessionId = (await scope.assertRun(run_id)) ?? undefined;
          await workerCheck();
          return result(await onRun(run_id, extra, notes, () => rag.answer(run_id, answer)));
        }),
      ),
  );

  server.registerTool(
    'get_run',
    {
      title: 'Read a run',
      description:
        'Read where a run stands: status (running, awaiting_input, completed, failed), route, retrieval status, the ' +
        'answer or the pending question, and bounded evidence. Use it to pick up a run after a restart or from another ' +
        'conversation; trace_uri names the full normalized trace resource.',
      inputSchema: GetRunInput,
      outputSchema: RunResult,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ run_id }) =>
      guarded(() =>
        audited('get_run', async (notes) => {
          notes.workflowId = run_id;
          notes.sessionId = (await scope.assertRun(run_id)) ?? undefined;
          notes.outcome = await scope.view(await rag.getOutcome(run_id));
          notes.projected = projectOutcome(notes.outcome);
          return result(notes.projected);
        }),
      ),
  );

  server.registerTool(
    'cancel_run',
    {
      title: 'Cancel a run',
      description:
        'Stop a run that is running or waits for the person (status "running" or "awaiting_input"), when the person no ' +
        'longer wants its answer: its sub-questions and model calls stop and it ends with status "failed" and error ' +
        'CANCELLED (otherwise a waiting run waits for days). A run that has already ended is left as it is. Returns the ' +
        'run as it stands afterwards.',
      inputSchema: CancelRunToolInput,
      outputSchema: RunResult,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ run_id, reason }) =>
      guarded(() =>
        audited('cancel_run', async (notes) => {
          notes.workflowId = run_id;
          notes.sessionId = (await scope.assertRun(run_id)) ?? undefined;
          await rag.cancelRun(run_id, { ...(reason ? { reason } : {}), waitMs: CANCEL_CLOSE_WAIT_MS });
          notes.outcome = await scope.view(await rag.getOutcome(run_id));
          notes.projected = projectOutcome(notes.outcome);
          return result(notes.projected);
        }),
      ),
  );
}
