import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { compareRuns } from '../../../core/compare/compare-runs';
import { ApiError, CompareQuery, RunComparison, RunDetail, RunList, RunListQuery, RunParams } from '../api-schemas';
import { notFound } from '../api-failure';
import { readerView } from '../reader-view';
import { findOwnedRun } from '../run-access';
import type { RouteDeps } from '../server-deps';
import { within } from './runs';

/** How long a listing waits for one waiting run to say what it asks; past it, that row's hitl stays null. */
const PENDING_QUESTION_WAIT_MS = 2000;

const errors = { 400: ApiError, 401: ApiError, 404: ApiError, 503: ApiError };

/**
 * The console's reads (issue 16): the caller's runs from Temporal visibility, one run in detail (route path,
 * retrievals with diagnostics, stage times, grades) and two runs compared. Only the tenant's own runs: the list
 * keeps rows whose session it owns, and detail and compare check every run first (404 for anyone else's).
 */
export const runHistoryRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { rag, tenants, knowledge, temporalUiUrl }) => {
  // issue 44 §4: what a reader is shown of a run (a run another token of the tenant started, too).
  const view = <T>(request: { tenant: string; groups: string[] }, value: T) => readerView(knowledge, tenants, request, value);
  const detailOf = (workflowId: string) => rag.getRunDetail(workflowId, temporalUiUrl ? { temporalUiBaseUrl: temporalUiUrl } : {});

  app.get('/api/runs', {
    schema: {
      summary: "The caller's runs, newest first, by status, route, session, knowledge base and start time",
      tags: ['runs'],
      querystring: RunListQuery,
      response: { 200: RunList, ...errors },
    },
  }, async (request) => {
    const { session, kb, ...filter } = request.query;
    if (session !== undefined && !(await tenants.ownsSession(session, request.tenant))) throw notFound('session', session);
    if (kb !== undefined && !tenants.kbsOf(request.tenant).includes(kb)) throw notFound('knowledge base', kb);
    const owned = new Map<string, Promise<boolean>>();
    const ownsSession = (id: string): Promise<boolean> => {
      let owns = owned.get(id);
      if (!owns) owned.set(id, (owns = tenants.ownsSession(id, request.tenant)));
      return owns;
    };
    const runs = await rag.listRuns({
      ...filter,
      ...(session ? { session } : {}),
      ...(kb ? { kb } : {}),
      include: async (row) => row.session !== null && (await ownsSession(row.session)),
      pendingOf: async (workflowId) => (await within(rag.getOutcome(workflowId), PENDING_QUESTION_WAIT_MS))?.outcome.hitl ?? null,
    });
    return view(request, { runs });
  });

  app.get('/api/runs/compare', {
    schema: {
      summary: 'Two of the caller\'s runs compared: route and grade changes, evidence in and out, rank moves, timings',
      tags: ['runs'],
      querystring: CompareQuery,
      response: { 200: RunComparison, ...errors },
    },
  }, async (request) => {
    const { a, b } = request.query;
    await Promise.all([findOwnedRun(rag, tenants, request.tenant, a), findOwnedRun(rag, tenants, request.tenant, b)]);
    const [before, after] = await Promise.all([detailOf(a).then((run) => view(request, run)), detailOf(b).then((run) => view(request, run))]);
    return view(request, compareRuns(before, after));
  });

  app.get('/api/runs/:workflowId/detail', {
    schema: {
      summary: "A run in detail: outcome, trace, route path, retrievals with diagnostics, stage times, grades, rounds",
      tags: ['runs'],
      params: RunParams,
      response: { 200: RunDetail, ...errors },
    },
  }, async (request) => {
    const { workflowId } = request.params;
    await findOwnedRun(rag, tenants, request.tenant, workflowId);
    return view(request, await detailOf(workflowId));
  });
};
