import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { newRagWorkflowId } from '../../../client/rag-client';
import { RagError, isRagError } from '../../../core/errors';
import { AnswerBody, ApiError, AskBody, RagOutcome, RunParams, RunStarted, RunView } from '../api-schemas';
import { notFound } from '../api-failure';
import { readerView, visibleTurns } from '../reader-view';
import { findOwnedRun } from '../run-access';
import type { RouteDeps } from '../server-deps';

const finished = (workflowId: string) =>
  new RagError('NOT_AWAITING_INPUT', `run "${workflowId}" has finished; it takes no more answers (ask again to continue)`);

/** The promise's value if it settles within `ms`, else null (its rejection, if first, is thrown). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<{ outcome: T } | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([promise.then((outcome) => ({ outcome })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const errors = { 400: ApiError, 401: ApiError, 404: ApiError, 503: ApiError };

/** Ask, answer, read a run. Every run is checked against the caller's tenant first (404 for anyone else's). */
export const runRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { rag, tenants, knowledge, sessionTurns, limits, workerCheck, newSessionId }) => {
  // issue 44 §4: what a reader is shown of a run (a run another token of the tenant started, too).
  const view = <T>(request: { tenant: string; groups: string[] }, value: T) => readerView(knowledge, tenants, request, value);
  app.post('/api/runs', {
    schema: {
      summary: 'Ask a question: starts a run and returns its first outcome (completed, awaiting_input or failed)',
      tags: ['runs'],
      body: AskBody,
      response: { 200: RagOutcome, 202: RunStarted, ...errors, 413: ApiError },
    },
  }, async (request, reply) => {
    const { question, sessionId = newSessionId(), hitl, wait } = request.body;
    // A knowledge base the tenant may not use is "not found", whether or not it exists (DESIGN §4b).
    const kb = request.body.kb ?? tenants.defaultKbOf(request.tenant);
    if (!tenants.kbsOf(request.tenant).includes(kb)) throw notFound('knowledge base', kb);
    // The first tenant to ask in a session owns it; to everyone else it does not exist.
    if (!(await tenants.claimSession(sessionId, request.tenant))) throw notFound('session', sessionId);
    // issue 44 §4: a run reads its session's earlier turns; one whose answers this token may not read is not its to go on.
    if (sessionTurns && (await visibleTurns({ rag, knowledge, tenants, sessionTurns }, request, sessionId)).withheld > 0) {
      throw new RagError('INVALID_INPUT', `session "${sessionId}" holds answers written from documents this token may not read; ask in a new session`);
    }
    await workerCheck();
    // The session's earlier turns are the tenant's only (issue 25 §1).
    // issue 44 §4: every retrieval of the run reads only what the token's groups may (a clause its filters cannot widen).
    const options = { sessionId, kb, tenant: request.tenant, access: request.groups, ...(hitl ? { hitl } : {}), ...(request.body.filters ? { filters: request.body.filters } : {}) };
    if (!wait) return reply.code(202).send({ ...(await rag.start(question, options)), status: 'running' as const });
    // Bounded (issue 14 §3): a worker that died a moment ago still counts as polling for minutes, and nobody would
    // settle the run. After askWaitMs the caller gets the run's id, as with wait: false; the run goes on.
    const workflowId = newRagWorkflowId(sessionId);
    const asked = rag.ask(question, { ...options, workflowId });
    const first = await within(asked, limits.askWaitMs);
    if (first) return reply.code(200).send(await view(request, first.outcome));
    asked.catch(() => undefined); // its outcome is read later (GET /api/runs/:id); the request is answered
    return reply.code(202).send({ ...(await rag.startedRun(workflowId)), sessionId, status: 'running' as const });
  });

  app.post('/api/runs/:workflowId/answer', {
    schema: {
      summary: "Answer a run's clarification question; returns its next outcome",
      tags: ['runs'],
      params: RunParams,
      body: AnswerBody,
      response: { 200: RagOutcome, ...errors, 409: ApiError, 413: ApiError },
    },
  }, async (request) => {
    const { workflowId } = request.params;
    const run = await findOwnedRun(rag, tenants, request.tenant, workflowId);
    if (!run.running) throw finished(workflowId);
    await workerCheck();
    const next = await rag.answer(workflowId, request.body.answer).catch((error: unknown) => {
      // The run was there a moment ago: "not found" now means it has just closed, not that it never existed.
      throw isRagError(error) && error.code === 'UNKNOWN_RUN' ? finished(workflowId) : error;
    });
    return view(request, next);
  });

  app.get('/api/runs/:workflowId', {
    schema: {
      summary: "A run's outcome as it stands and its normalized trace",
      tags: ['runs'],
      params: RunParams,
      response: { 200: RunView, ...errors },
    },
  }, async (request) => {
    const { workflowId } = request.params;
    await findOwnedRun(rag, tenants, request.tenant, workflowId);
    const [outcome, trace] = await Promise.all([rag.getOutcome(workflowId), rag.getTrace(workflowId)]);
    return view(request, { outcome, trace });
  });
};
