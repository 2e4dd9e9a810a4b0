import { FiltersInput } from '../../core/retrieval/metadata-filter';
import { z } from 'zod';
import { DocumentRecord, KbName, KbStats } from '../../core/knowledge/knowledge-base';
import { RagStep } from '../../core/progress/rag-step';
import { SessionTrace } from '../../core/schemas/audit';
import { DoctorReport } from '../../core/schemas/doctor';
import { RagTrace } from '../../core/schemas/rag-trace';
import { SessionTurn } from '../../core/schemas/conversation';
import { Route } from '../../core/schemas/graph-values';
import { RunComparison } from '../../core/schemas/run-comparison';
import { RunDetail } from '../../core/schemas/run-detail';
import { HitlAnswer, HitlSettings, Question, RagOutcome, RunStatus, SessionId } from '../../core/schemas/run-io';
import { RunRow } from '../../core/schemas/run-row';
import { CancelRunInput, RunCancellation } from '../../core/schemas/run-cancellation';

/*
 * The HTTP API's contracts. Requests are parsed with these schemas (→ 400 with one readable line); responses are
 * documented by them in /openapi.json (and the tests parse what the server sends).
 */

// Ids travel in URL paths: a closed charset, no "/" and no "..", so an id can never name another path or resource.
const SAFE_ID = /^[\w.:@-]+$/;

/** A session id as the API accepts it: core's SessionId, and no "..". */
export const ApiSessionId = SessionId.refine((value) => !value.includes('..'), 'sessionId must not contain ".."');

/** A run's workflow id, e.g. "rag-user-42-1a2b3c4d". */
export const WorkflowIdParam = z
  .string()
  .min(1, 'workflowId is empty')
  .max(255, 'workflowId is longer than 255 characters')
  .regex(SAFE_ID, 'workflowId may hold letters, digits and _ . : @ - only')
  .refine((value) => !value.includes('..'), 'workflowId must not contain ".."');

/** A Temporal run id (a UUID). */
export const RunIdQuery = z.string().regex(/^[0-9a-fA-F-]{36}$/, 'runId is not a Temporal run id (a UUID such as 0195…-…)');

export const SessionParams = z.strictObject({ sessionId: ApiSessionId.describe('the session id') });
export const RunParams = z.strictObject({ workflowId: WorkflowIdParam.describe('the run\'s workflow id') });
export const TraceQuery = z.strictObject({ runId: RunIdQuery.optional().describe('only this run of the session') });

export const AskBody = z.strictObject({
  question: Question.describe('the question, 1–2,000 characters'),
  sessionId: ApiSessionId.optional().describe('the session to ask in; a new one (owned by the caller) when omitted'),
  hitl: HitlSettings.partial().optional().describe('clarification settings: answer timeout and maximum rounds'),
  kb: KbName.optional().describe("the knowledge base to read; one of the caller's (GET /api/kbs); default: the server's default if the caller may use it, else the caller's first"),
  filters: FiltersInput.optional().describe('only documents whose metadata matches, inside the search (issue 44): {"product": "atlas"} or {"product": ["atlas", "zephyr"]} (one of); every key must match; "doc_id" names documents'),
  wait: z
    .boolean()
    .default(true)
    .describe('true (default): answer with the first outcome; false: answer 202 at once, then follow GET …/progress'),
});
export type AskBody = z.infer<typeof AskBody>;

export const AnswerBody = z.strictObject({ answer: HitlAnswer.describe("the person's answer, 1–2,000 characters") });

/** POST /api/runs/{id}/cancel (issue 43 §6): why, kept in the run's history in clear (say why, never a secret). */
export const CancelBody = z.strictObject({ reason: CancelRunInput.shape.reason.describe('why the run is cancelled, up to 500 characters') });
export { RunCancellation };

/** Every error: a closed code and one readable line. */
export const ApiError = z.object({
  error: z
    .string()
    .describe('INVALID_INPUT | UNAUTHORIZED | NOT_FOUND | METHOD_NOT_ALLOWED | REQUEST_TIMEOUT | NOT_AWAITING_INPUT | PAYLOAD_TOO_LARGE | URI_TOO_LONG | UNSUPPORTED_MEDIA_TYPE | HEADERS_TOO_LARGE | SERVICE_UNAVAILABLE | INTERNAL | …'),
  message: z.string(),
});
export type ApiError = z.infer<typeof ApiError>;

/** POST /api/runs with `wait: false`: the run started; follow it with GET /api/runs/{workflowId}/progress. */
export const RunStarted = z.object({ workflowId: z.string(), runId: z.string(), sessionId: z.string(), status: z.literal('running') });

export const RunView = z.object({ outcome: RagOutcome, trace: RagTrace.nullable().describe('the normalized trace (spec §5.6)') });

export const Health = z.object({ status: z.literal('ok') });

export const KbParams = z.strictObject({ kb: KbName.describe('the knowledge base') });
/** DELETE …/documents/*: the document id is the rest of the path, URL-encoded ("/" may stay or be %2F). */
export const DocumentParams = z.strictObject({ kb: KbName.describe('the knowledge base'), '*': z.string().min(1, 'the document id is empty').describe('the document id') });
export const KbList = z.object({ kbs: z.array(KbStats.extend({ default: z.boolean() })) });
export const DocumentList = z.object({ kb: z.string(), documents: z.array(DocumentRecord) });
export const DocumentRemoved = z.object({ kb: z.string(), removed: DocumentRecord });

/** GET /api/doctor: one check per configured service and model endpoint (core/schemas/doctor.ts). */
export { DoctorReport };

export { RagOutcome, RagStep, SessionTrace };

/*
 * The console's reads (issue 16): lists of runs, one run in detail, two runs compared. The shapes are core's
 * (RunRow, RunDetail, RunComparison), so the console imports the same types.
 */
const IsoTime = z.iso.datetime({ offset: true, message: 'expected an ISO 8601 time such as 2026-12-01T19:30:00Z' });
export const RunListQuery = z.strictObject({
  status: RunStatus.optional().describe('running | awaiting_input | completed | failed'),
  route: Route.optional().describe('answer | rewrite | clarify | scope_select | no_knowledge'),
  session: ApiSessionId.optional().describe('only this session (one of the caller\'s)'),
  kb: KbName.optional().describe("only this knowledge base (one of the caller's)"),
  since: IsoTime.optional().describe('runs started at or after this ISO time'),
  until: IsoTime.optional().describe('runs started at or before this ISO time'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('at most this many runs, 1–200 (default 50)'),
});
export const RunList = z.object({ runs: z.array(RunRow).describe('newest first; waiting runs carry their pending question in hitl') });
export const CompareQuery = z.strictObject({
  a: WorkflowIdParam.describe('the first run (the "before")'),
  b: WorkflowIdParam.describe('the second run (the "after")'),
});

export { RunComparison, RunDetail, RunRow };

/*
 * Conversations (issue 25 §1): a session's completed turns, as the console's conversation view and API clients read
 * them (core's SessionTurn, the rows later turns of the session condense their questions with).
 */
/** DELETE /api/sessions/{id} (issue 35 §2): what was erased, per store. A second call reports zeros. */
export const SessionErasureReport = z.object({
  sessionId: z.string(),
  cancelledRuns: z.array(z.string()).describe('runs still open (waiting for a person, or running) that were cancelled and closed first'),
  temporalRuns: z.number().int().min(0).describe('workflow executions deleted from Temporal, history and visibility, sub-questions included'),
  temporalPending: z.array(z.string()).describe('executions whose deletion Temporal accepted but had not carried out within 90 s (it deletes a closed run once its close is acknowledged)'),
  sessionTurns: z.number().int().min(0),
  auditInvocations: z.number().int().min(0),
  auditEvents: z.number().int().min(0),
  answerStreamEvents: z.number().int().min(0),
});

export const SessionTurns = z.object({
  sessionId: z.string(),
  turns: z.array(SessionTurn).describe('the completed turns of the session, oldest first (a run still running or waiting has none yet)'),
});

export { SessionTurn };
