import type { FastifyInstance } from 'fastify';
import { createOfflineChatModels } from '../../activities/adapters/offline-chat-models';
import { RagOutcome } from '../../core/schemas/run-io';
import { SessionTurns } from '../../server/http/api-schemas';
import { bearer, clarifyQuestion, httpModels, openHttpHarness, type HttpHarness, type Tenant } from '../support/http-harness';
import { sessionId } from '../workflows/harness';

/*
 * GET /api/sessions/{sessionId}/turns (issue 25 §1) on the dev server: a worker that records each run's turn in the
 * same SQLite file the server reads (as `ragtime serve` and `ragtime worker` share audit.sqlite), deterministic grades
 * and the offline provider's condensation rules (docs/design/conversations.md), so follow-ups have standalone forms.
 * Responses are parsed with the published SessionTurns schema.
 */

let harness: HttpHarness;
let app: FastifyInstance;

// The questions of the console's conversation (test/browser/console.test.ts): a product, then "它…", then another product.
const FIRST = 'Aurora X2 路由器的保修期是多久？';
const SECOND = '它的产品价格是多少？';
const THIRD = '那 Nimbus C1 摄像头呢？';

beforeAll(async () => {
  const offline = createOfflineChatModels();
  harness = await openHttpHarness({ models: { ...httpModels, condenseQuestion: async (question, turns) => offline.condenseQuestion?.(question, turns) } });
  app = harness.server();
  await app.ready();
}, 120_000);
afterAll(async () => harness?.close());

const ask = async (question: string, session: string): Promise<RagOutcome> => {
  const response = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question, sessionId: session } });
  expect(response.statusCode).toBe(200);
  return RagOutcome.parse(JSON.parse(response.body));
};
const turnsOf = (session: string, tenant: Tenant = 'acme') => app.inject({ method: 'GET', url: `/api/sessions/${session}/turns`, headers: bearer(tenant) });

test("a three-turn conversation reads back oldest first: questions, standalone questions, answers, routes and runs", async () => {
  const session = sessionId();
  const first = await ask(FIRST, session);
  const second = await ask(SECOND, session);
  const third = await ask(THIRD, session);
  // The offline rules (core/conversation/offline-condense.ts): "它的" → the subject of turn 1; a new subject and
  // nothing else → turn 2's standalone question asked of it.
  expect(second.conversation).toMatchObject({ standaloneQuestion: 'Aurora X2 路由器的产品价格是多少？', condensedBy: 'offline_rules', turnsBefore: 1 });
  expect(third.conversation).toMatchObject({ standaloneQuestion: 'Nimbus C1 摄像头的产品价格是多少？', condensedBy: 'offline_rules', turnsBefore: 2 });

  const response = await turnsOf(session);
  expect(response.statusCode).toBe(200);
  const body = SessionTurns.parse(JSON.parse(response.body));
  expect(body).toEqual({
    sessionId: session,
    turns: [
      { turn: 1, question: FIRST, standaloneQuestion: FIRST, answer: first.answer?.text, route: 'answer', workflowId: first.workflowId },
      { turn: 2, question: SECOND, standaloneQuestion: 'Aurora X2 路由器的产品价格是多少？', answer: second.answer?.text, route: 'answer', workflowId: second.workflowId },
      { turn: 3, question: THIRD, standaloneQuestion: 'Nimbus C1 摄像头的产品价格是多少？', answer: third.answer?.text, route: 'answer', workflowId: third.workflowId },
    ],
  });
  expect(body.turns.every((turn) => typeof turn.answer === 'string' && turn.answer.length > 0)).toBe(true);
});

test('a waiting run has no turn yet; answered, it has one (HITL across turns)', async () => {
  const session = sessionId();
  const waiting = await ask(clarifyQuestion('二'), session);
  expect(waiting.status).toBe('awaiting_input');
  // The session is the caller's from its first ask on: 200 with no turns, not 404.
  expect(SessionTurns.parse(JSON.parse((await turnsOf(session)).body))).toEqual({ sessionId: session, turns: [] });
  const answered = await app.inject({ method: 'POST', url: `/api/runs/${waiting.workflowId}/answer`, headers: bearer('acme'), payload: { answer: '丹瑾' } });
  expect(RagOutcome.parse(JSON.parse(answered.body)).status).toBe('completed');
  const { turns } = SessionTurns.parse(JSON.parse((await turnsOf(session)).body));
  expect(turns).toEqual([expect.objectContaining({ turn: 1, question: clarifyQuestion('二'), route: 'answer', workflowId: waiting.workflowId })]);
});

test('turns recorded under another tenant for the same session id are never listed', async () => {
  const session = sessionId();
  const asked = await ask(FIRST, session);
  // Straight into the store, as a worker would record a run of globex's that used the same session id.
  await harness.turns.append('globex', session, { question: '别人的问题', standaloneQuestion: '别人的问题', answer: '别人的回答', route: 'answer', workflowId: `rag-${session}-globex00` }, new Date().toISOString());
  const { turns } = SessionTurns.parse(JSON.parse((await turnsOf(session)).body));
  expect(turns.map((turn) => turn.workflowId)).toEqual([asked.workflowId]);
});

test("another tenant's session and an unknown one are both 404 with the same body (as the Trace API answers)", async () => {
  const session = sessionId();
  await ask(FIRST, session);
  const foreign = await turnsOf(session, 'globex');
  expect(foreign.statusCode).toBe(404);
  expect(JSON.parse(foreign.body)).toEqual({ error: 'NOT_FOUND', message: `no session "${session}"; check the session id` });
  const unknown = await turnsOf('never-asked-in');
  expect(unknown.statusCode).toBe(404);
  expect(JSON.parse(unknown.body)).toEqual({ error: 'NOT_FOUND', message: 'no session "never-asked-in"; check the session id' });
  // A malformed id is 400, an anonymous caller 401, as on every route.
  expect((await turnsOf('bad%20id')).statusCode).toBe(400);
  expect((await app.inject({ method: 'GET', url: `/api/sessions/${session}/turns` })).statusCode).toBe(401);
});
