import type { FastifyInstance } from 'fastify';
import type { ChatModels, Retriever } from '../../activities/ports';
import { RagOutcome } from '../../core/schemas/run-io';
import { ApiError, RunComparison, RunDetail, RunList } from '../../server/http/api-schemas';
import { bearer, clarifyQuestion, httpModels, httpRetriever, openHttpHarness, simpleQuestion, type HttpHarness } from '../support/http-harness';
import { diagnosticsOf } from '../support/run-detail-fixture';
import { chunk, metaM0, plannerResult } from '../support/scenario';
import { pollUntil } from '../support/services';
import { sessionId } from '../workflows/harness';

/*
 * The console's reads (issue 16) on the real dev server and worker: runs listed from visibility, one run in detail
 * from its history, two runs compared. The knowledge of "保修" questions is a list the test changes between two runs
 * (before: recalled but cut, so no evidence; after: the warranty page is there), as a knowledge change would.
 */

const WARRANTY = '保修';
const warrantyPage = chunk('Aurora X2 保修期为两年。', { chunk_id: 'warranty.md::l3::0', filename: 'warranty.md', doc_id: 'warranty.md' });
let warrantyKnown = false;

const retriever: Retriever = {
  async retrieve(query, kb) {
    if (!query.includes(WARRANTY)) return httpRetriever.retrieve(query, kb);
    const docs = warrantyKnown ? [warrantyPage] : [];
    const fused: Array<[string, number]> = warrantyKnown ? [['warranty.md::l3::0', 1], ['faq.md::l3::4', 2]] : [['faq.md::l3::4', 1]];
    return { docs, meta: { ...metaM0(docs.length), retrieval_empty: docs.length === 0 }, diagnostics: diagnosticsOf(fused) };
  },
};

/** A comparison question is planned complex, into two sub-questions (each answered from the default retrieval). */
const COMPLEX = '比较丹瑾与丹恒的属性和定位';
const models: ChatModels = {
  ...httpModels,
  async planComplexity(question) {
    return question === COMPLEX ? plannerResult('complex', 'two characters', ['丹瑾的属性', '丹恒的属性']) : httpModels.planComplexity(question);
  },
};

let harness: HttpHarness;
let app: FastifyInstance;
const UI = 'http://127.0.0.1:8233';

beforeAll(async () => {
  harness = await openHttpHarness({ models, retriever });
  app = harness.server({ temporalUiUrl: UI });
  await app.ready();
}, 120_000);
afterAll(async () => harness?.close());

const get = (url: string, tenant: 'acme' | 'globex' = 'acme') => app.inject({ method: 'GET', url, headers: bearer(tenant) });
const ask = async (question: string, session: string) =>
  RagOutcome.parse(JSON.parse((await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question, sessionId: session } })).body));
const errorOf = (body: string) => ApiError.parse(JSON.parse(body));

describe('the run detail and comparison of one question before and after a knowledge change', () => {
  const session = sessionId();
  let before: RagOutcome;
  let after: RagOutcome;
  beforeAll(async () => {
    warrantyKnown = false;
    before = await ask(simpleQuestion(WARRANTY), session);
    warrantyKnown = true;
    after = await ask(simpleQuestion(WARRANTY), session);
  }, 60_000);

  test('GET /api/runs/{id}/detail: route path, retrieval diagnostics, stage times, grades, UI link', async () => {
    const response = await get(`/api/runs/${after.workflowId}/detail`);
    expect(response.statusCode).toBe(200);
    const detail = RunDetail.parse(JSON.parse(response.body));
    expect(detail.question).toBe(simpleQuestion(WARRANTY));
    expect(detail.outcome).toMatchObject({ workflowId: after.workflowId, status: 'completed', route: 'answer' });
    expect(detail.path.nodes.map((node) => node.label)).toEqual(['question', 'fast path: simple', 'retrieve (initial)', 'grade', 'answer']);
    expect(detail.retrievals).toHaveLength(1);
    expect(detail.retrievals[0]).toMatchObject({ workflowId: after.workflowId, purpose: 'initial', query: simpleQuestion(WARRANTY), meta: { retrieval_mode: 'hybrid' } });
    expect(detail.retrievals[0]?.diagnostics?.fused.map((hit) => [hit.chunk_id, hit.rank])).toEqual([['warranty.md::l3::0', 1], ['faq.md::l3::4', 2]]);
    // The activities in the order the graph ran them, each closed after it was scheduled, within the run.
    const stages = detail.timings.filter((stage) => stage.type !== 'recordAudit');
    expect(stages.map((stage) => [stage.type, stage.status, stage.attempt])).toEqual([
      ['retrieve', 'completed', 1],
      ['gradeEvidence', 'completed', 1],
      ['generateAnswer', 'completed', 1],
    ]);
    for (const stage of stages) {
      expect(stage.startedAtMs).toBeGreaterThanOrEqual(stage.scheduledAtMs);
      expect(stage.closedAtMs).toBeGreaterThanOrEqual(stage.startedAtMs ?? 0);
      expect(stage.closedAtMs).toBeLessThanOrEqual(detail.durationMs);
    }
    expect(detail.grades).toEqual([expect.objectContaining({ relevance: 'strong', answerability: 'sufficient', confidence: 0.95, route: 'answer', retrievalStatus: 'answerable' })]);
    expect(detail.temporalUiUrl).toBe(`${UI}/namespaces/default/workflows/${encodeURIComponent(after.workflowId)}`);
  });

  test('GET /api/runs/compare: the route changed, the warranty page entered, ranks moved', async () => {
    const response = await get(`/api/runs/compare?a=${before.workflowId}&b=${after.workflowId}`);
    expect(response.statusCode).toBe(200);
    const comparison = RunComparison.parse(JSON.parse(response.body));
    expect(comparison).toMatchObject({ sameQuestion: true, changed: true, routeChanged: true });
    expect(comparison.a.path.at(-1)).toBe('no_knowledge');
    expect(comparison.b.path.at(-1)).toBe('answer');
    expect(comparison.changes).toEqual(expect.arrayContaining([{ field: 'route', a: 'no_knowledge', b: 'answer' }]));
    expect(comparison.evidence.entered.map((ref) => [ref.key, ref.rankB])).toEqual([['warranty.md::l3::0', 1]]);
    // Before, no evidence: the grader was not called; after, it was.
    expect(comparison.grades).toEqual([expect.objectContaining({ position: 'run#1' })]);
    expect(comparison.ranks.find((movement) => movement.leg === 'fused')?.moves).toEqual([
      { chunk_id: 'faq.md::l3::4', filename: 'faq.md::l3::4.md', rankA: 1, rankB: 2, delta: 1 },
      { chunk_id: 'warranty.md::l3::0', filename: 'warranty.md::l3::0.md', rankA: null, rankB: 1, delta: null },
    ]);
    expect(comparison.timings.map((row) => row.type)).toEqual(expect.arrayContaining(['total', 'generateAnswer', 'gradeEvidence']));
  });

  test('a run compared with itself: nothing changed', async () => {
    const comparison = RunComparison.parse(JSON.parse((await get(`/api/runs/compare?a=${after.workflowId}&b=${after.workflowId}`)).body));
    expect(comparison).toMatchObject({ changed: false, changes: [], grades: [], ranks: [], timings: [] });
  });

  test('GET /api/runs lists the session\'s runs newest first, with question, kb, path and duration', async () => {
    const { runs } = await pollUntil('both runs listed as completed', async () => {
      const list = RunList.parse(JSON.parse((await get(`/api/runs?session=${session}&status=completed`)).body));
      return list.runs.length === 2 ? list : undefined;
    });
    expect(runs.map((row) => row.workflowId)).toEqual([after.workflowId, before.workflowId]);
    expect(runs[0]).toMatchObject({ session, status: 'completed', route: 'answer', kb: expect.any(String), question: simpleQuestion(WARRANTY), path: ['simple', 'answer'], hitl: null });
    expect(runs[0]?.durationMs).toBeGreaterThan(0);
    expect(runs[1]).toMatchObject({ route: 'no_knowledge', path: ['simple', 'no_knowledge'] });
    const answered = RunList.parse(JSON.parse((await get(`/api/runs?session=${session}&route=answer&since=${runs[1]?.startedAt}`)).body));
    expect(answered.runs.map((row) => row.workflowId)).toEqual([after.workflowId]);
    const none = RunList.parse(JSON.parse((await get(`/api/runs?session=${session}&until=2000-01-01T00:00:00Z`)).body));
    expect(none.runs).toEqual([]);
  });

  test('another tenant sees none of it: 404 for detail, compare and the session, and no rows in its list', async () => {
    for (const url of [`/api/runs/${after.workflowId}/detail`, `/api/runs/compare?a=${before.workflowId}&b=${after.workflowId}`, `/api/runs?session=${session}`]) {
      const response = await get(url, 'globex');
      expect([url, response.statusCode]).toEqual([url, 404]);
      expect(errorOf(response.body).error).toBe('NOT_FOUND');
    }
    const theirs = RunList.parse(JSON.parse((await get('/api/runs?limit=200', 'globex')).body));
    expect(theirs.runs.map((row) => row.workflowId)).not.toEqual(expect.arrayContaining([before.workflowId]));
    expect(theirs.runs.every((row) => row.session !== session)).toBe(true);
  });

  test('a wrong token is refused with 401; a bad filter with 400', async () => {
    for (const url of ['/api/runs', `/api/runs/${after.workflowId}/detail`, `/api/runs/compare?a=${before.workflowId}&b=${after.workflowId}`]) {
      const response = await app.inject({ method: 'GET', url, headers: { authorization: 'Bearer not-a-token' } });
      expect([url, response.statusCode, errorOf(response.body).error]).toEqual([url, 401, 'UNAUTHORIZED']);
    }
    for (const url of ['/api/runs?limit=0', '/api/runs?since=yesterday', '/api/runs?status=done', '/api/runs/compare?a=x', '/api/runs?colour=red']) {
      const response = await get(url);
      expect([url, response.statusCode, errorOf(response.body).error]).toEqual([url, 400, 'INVALID_INPUT']);
    }
  });
});

test('GET /api/runs?status=awaiting_input lists a waiting run with its pending question', async () => {
  const session = sessionId();
  const waiting = await ask(clarifyQuestion('列'), session);
  expect(waiting.status).toBe('awaiting_input');
  const { runs } = await pollUntil('the waiting run listed', async () => {
    const list = RunList.parse(JSON.parse((await get(`/api/runs?status=awaiting_input&session=${session}`)).body));
    return list.runs.length === 1 ? list : undefined;
  });
  expect(runs[0]).toMatchObject({ workflowId: waiting.workflowId, status: 'awaiting_input', path: ['simple', '1 clarification', 'waiting for a person'], hitl: { prompt: '请补充角色名', options: ['丹瑾', '丹恒'], round: 1 } });
  await harness.env.client.workflow.getHandle(waiting.workflowId).terminate('test over');
}, 30_000);

test('the detail of a complex run: sub-questions side by side in the path, their children in the waterfall', async () => {
  const run = await ask(COMPLEX, sessionId());
  expect(run).toMatchObject({ status: 'completed', route: 'answer' });
  const detail = RunDetail.parse(JSON.parse((await get(`/api/runs/${run.workflowId}/detail`)).body));
  expect(detail.path.nodes.map((node) => node.label)).toEqual(['question', 'planner: complex', 'sub-question 1', 'sub-question 2', 'synthesis', 'answer']);
  expect(detail.path.edges).toEqual(expect.arrayContaining([{ from: 'planner', to: 'sub-2' }, { from: 'sub-2', to: 'synthesis' }]));
  expect(detail.retrievals.map((retrieval) => [retrieval.workflowId, retrieval.purpose, retrieval.query])).toEqual([
    [`${run.workflowId}/sub-1`, 'sub_question', '丹瑾的属性'],
    [`${run.workflowId}/sub-2`, 'sub_question', '丹恒的属性'],
  ]);
  expect(detail.grades.map((grade) => grade.workflowId)).toEqual([`${run.workflowId}/sub-1`, `${run.workflowId}/sub-2`]);
  const children = detail.timings.filter((stage) => stage.kind === 'child_workflow');
  expect(children.map((stage) => [stage.type, stage.workflowId, stage.status])).toEqual([
    ['subQuestionWorkflow', `${run.workflowId}/sub-1`, 'completed'],
    ['subQuestionWorkflow', `${run.workflowId}/sub-2`, 'completed'],
  ]);
  // A child's activities run inside the child's bar.
  const sub1 = children[0];
  const sub1Retrieve = detail.timings.find((stage) => stage.type === 'retrieve' && stage.workflowId === `${run.workflowId}/sub-1`);
  expect(sub1Retrieve?.scheduledAtMs).toBeGreaterThanOrEqual(sub1?.scheduledAtMs ?? Infinity);
  expect(sub1Retrieve?.closedAtMs).toBeLessThanOrEqual(sub1?.closedAtMs ?? -1);
  expect(detail.timings.map((stage) => stage.type)).toEqual(expect.arrayContaining(['planComplexity', 'generateAnswer']));
}, 30_000);

test('/openapi.json documents the three reads with their errors', async () => {
  const document = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as { paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: Array<{ name: string }> }>> };
  for (const [route, codes] of [['/api/runs', ['200', '400', '401', '404', '503']], ['/api/runs/{workflowId}/detail', ['200', '400', '401', '404', '503']], ['/api/runs/compare', ['200', '400', '401', '404', '503']]] as const) {
    expect([route, Object.keys(document.paths[route]?.get?.responses ?? {})]).toEqual([route, codes]);
  }
  expect(document.paths['/api/runs']?.get?.parameters?.map((parameter) => parameter.name)).toEqual(['status', 'route', 'session', 'kb', 'since', 'until', 'limit']);
});

test('the detail of a clarified run: ask, answer, targeted retrieval and its grade, in the path and the record', async () => {
  const first = await ask(clarifyQuestion('详'), sessionId());
  expect(first.status).toBe('awaiting_input');
  const answered = await app.inject({ method: 'POST', url: `/api/runs/${first.workflowId}/answer`, headers: bearer('acme'), payload: { answer: '丹瑾' } });
  expect(RagOutcome.parse(JSON.parse(answered.body))).toMatchObject({ status: 'completed', route: 'answer' });
  const detail = RunDetail.parse(JSON.parse((await get(`/api/runs/${first.workflowId}/detail`)).body));
  expect(detail.path.nodes.map((node) => node.label)).toEqual([
    'question',
    'fast path: simple',
    'retrieve (initial)',
    'grade',
    'clarify (round 1): answered',
    'retrieve (targeted)',
    'grade',
    'answer',
  ]);
  expect(detail.path.nodes[0]?.detail).toBe(clarifyQuestion('详'));
  expect(detail.retrievals.map((retrieval) => retrieval.purpose)).toEqual(['initial', 'hitl_targeted']);
  expect(detail.grades.map((grade) => grade.route)).toEqual(['clarify', 'answer']);
  expect(detail.hitl).toEqual([expect.objectContaining({ round: 1, answer: '丹瑾', outcome: 'answered' })]);
}, 30_000);
