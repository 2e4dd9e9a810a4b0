import type { AnswerVerification } from '../schemas/answer';
import type { DiagnosisEvent, DiagnosisEventType } from '../schemas/audit';
import { cutText, isoTime } from './bounded-text';
import type { AuditIds } from './tool-invocation';

/*
 * The thin timeline of a run (seed 004 §4.6 `diagnosis_trace`): started, asked a person, got an answer, completed,
 * failed. Details are bounded and content-free: statuses, routes, rounds, counts and error codes; never the
 * question, a prompt, an answer or an error message (which may quote any of them).
 */

type Detail = DiagnosisEvent['detail'];

const ERROR_TYPE_CHARS = 100;

function event(ids: AuditIds, key: string, type: DiagnosisEventType, at: number, detail: Detail): DiagnosisEvent {
  return {
    session_id: ids.sessionId,
    workflow_id: ids.workflowId,
    run_id: ids.runId,
    key,
    event_type: type,
    detail,
    created_at: isoTime(at),
  };
}

/** The run began: a new question, or a resume from a snapshot (`resumeFrom`). */
export function runStartedEvent(
  ids: AuditIds,
  at: number,
  facts: { resumed: boolean; maxRounds: number; answerTimeoutMs: number },
): DiagnosisEvent {
  return event(ids, 'run_started', 'run_started', at, {
    status: 'running',
    resumed: facts.resumed,
    max_rounds: facts.maxRounds,
    answer_timeout_ms: facts.answerTimeoutMs,
  });
}

/** The run asked a person (round ≥ 1) and waits. */
export function hitlRequestedEvent(
  ids: AuditIds,
  at: number,
  facts: { round: number; route: string | null; retrievalStatus: string | null; optionCount: number },
): DiagnosisEvent {
  return event(ids, `hitl_requested:${facts.round}`, 'hitl_requested', at, {
    status: 'awaiting_input',
    round: facts.round,
    route: facts.route,
    retrieval_status: facts.retrievalStatus,
    option_count: facts.optionCount,
  });
}

/** An answer was taken for a round (round 0: the answer a resumed run started with). */
export function answerReceivedEvent(
  ids: AuditIds,
  at: number,
  facts: { round: number; via: 'signal' | 'update' | 'resume_from' },
): DiagnosisEvent {
  return event(ids, `answer_received:${facts.round}`, 'answer_received', at, {
    status: 'running',
    round: facts.round,
    via: facts.via,
  });
}

/** The run completed; `awaitingPerson` when it ended still needing one (timed out, or out of rounds). */
export function completedEvent(
  ids: AuditIds,
  at: number,
  facts: {
    route: string | null;
    retrievalStatus: string | null;
    rounds: number;
    awaitingPerson: boolean;
    evidenceCount: number;
    /** Set when a retrieval could not read the knowledge base (the outcome's `degraded`, without the error text). */
    degraded?: { component: string; retrievals: number; of: number } | null;
  },
): DiagnosisEvent {
  return event(ids, 'completed', 'completed', at, {
    status: 'completed',
    route: facts.route,
    retrieval_status: facts.retrievalStatus,
    rounds: facts.rounds,
    awaiting_person: facts.awaitingPerson,
    evidence_count: facts.evidenceCount,
    // Only when degraded, so the events of healthy runs read as before.
    ...(facts.degraded ? { degraded_component: facts.degraded.component, degraded_retrievals: facts.degraded.retrievals, retrievals: facts.degraded.of } : {}),
  });
}

/**
 * The answer node ran (DESIGN §3.6): how long the answer is, how many citations it has and whether they verified,
 * the answer check's action and how many numbers and claims it flagged (when it flagged any), or that the writer
 * failed (its error code). Never the answer's text.
 */
export function answerWrittenEvent(
  ids: AuditIds,
  at: number,
  facts:
    | {
        written: true;
        chars: number;
        citations: number;
        verification: string;
        repairAttempted: boolean;
        model: string;
        durationMs: number;
        /** The answer's verification, for the answer check's action and counts (issue 26 §4); never its text. */
        answerCheck?: Pick<AnswerVerification, 'action' | 'numeric_warnings' | 'unsupported_claims'>;
      }
    | { written: false; errorType: string },
): DiagnosisEvent {
  return event(
    ids,
    'answer_written',
    'answer_written',
    at,
    facts.written
      ? {
          status: 'running',
          answer_chars: facts.chars,
          citation_count: facts.citations,
          verification: facts.verification,
          repair_attempted: facts.repairAttempted,
          answer_model: cutText(facts.model, ERROR_TYPE_CHARS),
          duration_ms: facts.durationMs,
          // Only when the check had findings, so the events of clean answers read as before.
          ...(facts.answerCheck?.action
            ? {
                answer_check: facts.answerCheck.action,
                numeric_warnings: facts.answerCheck.numeric_warnings?.length ?? 0,
                unsupported_claims: facts.answerCheck.unsupported_claims?.length ?? 0,
              }
            : {}),
        }
      : { status: 'running', answer_failed: true, error_type: cutText(facts.errorType, ERROR_TYPE_CHARS) },
  );
}

/** The run failed with a closed error code (the message stays in the encrypted history). */
export function failedEvent(ids: AuditIds, at: number, facts: { errorType: string; route: string | null }): DiagnosisEvent {
  return event(ids, 'failed', 'failed', at, {
    status: 'failed',
    error_type: cutText(facts.errorType, ERROR_TYPE_CHARS),
    route: facts.route,
  });
}

/**
 * The run was cancelled from outside (RagClient.cancel; an MCP client cancelling its tool call): where it stood
 * (route, rounds asked so far). Recorded by the workflow in a non-cancellable scope, before it ends CANCELLED.
 */
export function cancelledEvent(ids: AuditIds, at: number, facts: { route: string | null; rounds: number }): DiagnosisEvent {
  return event(ids, 'cancelled', 'cancelled', at, { status: 'cancelled', route: facts.route, rounds: facts.rounds });
}
