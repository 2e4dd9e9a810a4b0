import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { RagClient } from '../../client/rag-client';
import { SessionTrace } from '../../core/schemas/audit';
import { RagOutcome } from '../../core/schemas/run-io';
import { RunStarted, RunView } from '../../server/http/api-schemas';
import { AesGcmCodec } from '../../client/codec/aes-gcm-codec';
import { createCodecHandler } from '../../server/codec/codec-handler';
import { toJsonPayload } from '../../server/codec/payload-json';
import { TEST_KEYRING } from '../support/codec-keys';
import { AnswerStreamMessage } from '../../core/schemas/answer-stream';
import { SLOW, STREAMED_PIECES, TOKENS, bearer, clarifyQuestion, openHttpHarness, simpleQuestion, streamedQuestion, type HttpHarness } from '../support/http-harness';
import { pollUntil } from '../support/services';
import { sessionId } from '../workflows/harness';

/*
 * The HTTP API of issue 6 §2 on the real dev server: a worker runs the real workflows with deterministic models,
 * and every response is parsed with the published schemas. The progress stream is read over a real socket.
 */

let harness: HttpHarness;
let app: FastifyInstance;
const UI_ORIGIN = 'http://127.0.0.1:8233';

beforeAll(async () => {
  harness = await openHttpHarness();
  // The codec endpoint as `ragtime serve` mounts it: the workers' keys, the API's tenant tokens, CORS for the UI.
  const tenants = harness.tenants;
  const codecHandler = createCodecHandler(new AesGcmCodec(TEST_KEYRING), { allowedOrigins: [UI_ORIGIN], authorize: (token) => tenants.tenantOf(token) !== null });
  app = harness.server({ codecHandler });
  await app.ready();
}, 120_000);
afterAll(async () => harness?.close());

const post = (url: string, payload: unknown, tenant: 'acme' | 'globex' = 'acme') =>
  app.inject({ method: 'POST', url, headers: bearer(tenant), payload: payload as Record<string, unknown> });
const get = (url: string, tenant: 'acme' | 'globex' = 'acme') => app.inject({ method: 'GET', url, headers: bearer(tenant) });

function outcomeOf(body: string): RagOutcome {
  return RagOutcome.parse(JSON.parse(body));
}

describe('runs', () => {
  test('POST /api/runs asks and answers with the first outcome (completed)', async () => {
    const session = sessionId();
    const response = await post('/api/runs', { question: simpleQuestion('丹瑾'), sessionId: session });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const outcome = outcomeOf(response.body);
    expect(outcome).toMatchObject({ status: 'completed', route: 'answer', sessionId: session });
    expect(outcome.workflowId).toMatch(new RegExp(`^rag-${session}-[0-9a-f]{8}$`));
    // The answer node (issue 11): the answer with its verified citations, in the outcome the API returns.
    expect(outcome.answer).toMatchObject({ text: '丹瑾是湮灭属性角色[1]。', verification: { status: 'verified' }, model: 'http-test-answerer' });
    expect(outcome.answer?.citations).toEqual([expect.objectContaining({ marker: 1, doc_index: 1, quote: '丹瑾是湮灭属性角色。' })]);
    expect(outcome.answer_null_reason).toBeNull();
  });

  test('POST /api/runs without a sessionId opens a new session owned by the caller', async () => {
    const outcome = outcomeOf((await post('/api/runs', { question: simpleQuestion('卡卡罗') })).body);
    expect(outcome.sessionId).toMatch(/^api-[0-9a-f-]{36}$/);
    expect(await harness.owners.ownerOf(outcome.sessionId)).toBe('acme');
  });

  test('GET /api/runs/{workflowId} returns the outcome and the normalized trace', async () => {
    const asked = outcomeOf((await post('/api/runs', { question: simpleQuestion('椿'), sessionId: sessionId() })).body);
    const response = await get(`/api/runs/${asked.workflowId}`);
    expect(response.statusCode).toBe(200);
    const view = RunView.parse(JSON.parse(response.body));
    expect(view.outcome).toMatchObject({ workflowId: asked.workflowId, runId: asked.runId, status: 'completed' });
    expect(view.trace).toMatchObject({ route: 'answer', query: simpleQuestion('椿') });
    expect(view.trace).toEqual(JSON.parse(response.body).outcome.rag_trace);
  });

  test('ask → awaiting_input → answer → completed (HITL over HTTP)', async () => {
    const first = outcomeOf((await post('/api/runs', { question: clarifyQuestion('一'), sessionId: sessionId() })).body);
    expect(first).toMatchObject({ status: 'awaiting_input', route: 'clarify', hitl: { prompt: '请补充角色名', options: ['丹瑾', '丹恒'], round: 1 } });
    const answered = await post(`/api/runs/${first.workflowId}/answer`, { answer: '丹瑾' });
    expect(answered.statusCode).toBe(200);
    const second = outcomeOf(answered.body);
    expect(second).toMatchObject({ workflowId: first.workflowId, status: 'completed', route: 'answer' });
    expect(second.rounds).toEqual([expect.objectContaining({ round: 1, answer: '丹瑾', answered_via: 'update', outcome: 'answered' })]);
    // A finished run takes no more answers: 409.
    const again = await post(`/api/runs/${first.workflowId}/answer`, { answer: '丹恒' });
    expect(again.statusCode).toBe(409);
    expect(JSON.parse(again.body)).toMatchObject({ error: 'NOT_AWAITING_INPUT' });
  });

  test('an answer that is an option number picks the option; one that names none is 400 with the list, and nothing is sent', async () => {
    const first = outcomeOf((await post('/api/runs', { question: clarifyQuestion('一'), sessionId: sessionId() })).body);
    expect(first.hitl?.options).toEqual(['丹瑾', '丹恒']);
    const refused = await post(`/api/runs/${first.workflowId}/answer`, { answer: '3' });
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({ error: 'INVALID_INPUT', message: 'option 3 does not exist: the run offers 1. 丹瑾; 2. 丹恒; nothing was sent' });
    expect(RunView.parse(JSON.parse((await get(`/api/runs/${first.workflowId}`)).body)).outcome).toMatchObject({ status: 'awaiting_input', rounds: [expect.objectContaining({ outcome: 'waiting', answer: null })] });
    const picked = outcomeOf((await post(`/api/runs/${first.workflowId}/answer`, { answer: '2' })).body);
    expect(picked).toMatchObject({ status: 'completed', rounds: [expect.objectContaining({ answer: '丹恒', outcome: 'answered' })] });
  });

  test('POST /api/runs with wait=false answers 202 at once with the run to follow', async () => {
    const session = sessionId();
    const response = await post('/api/runs', { question: simpleQuestion(`${SLOW}守岸人`), sessionId: session, wait: false });
    expect(response.statusCode).toBe(202);
    const started = RunStarted.parse(JSON.parse(response.body));
    expect(started).toMatchObject({ sessionId: session, status: 'running' });
    const now = outcomeOf((await get(`/api/runs/${started.workflowId}`)).body.replace(/^{"outcome":(.*),"trace":.*}$/s, '$1'));
    expect(now.status).toBe('running');
  });
});

describe('a worker that died a moment ago (issue 14 §3)', () => {
  test('POST /api/runs answers within askWaitMs: 202 with the run\'s id when nobody settles the run', async () => {
    // Temporal lists a killed worker's pollers for minutes, so the worker check passes; nobody polls this queue.
    const orphaned = RagClient.fromClient(harness.env.client, `nobody-${randomUUID()}`);
    const server = harness.server({ rag: orphaned, workerCheck: async () => undefined, limits: { bodyLimitBytes: 64 * 1024, askWaitMs: 1_500 } });
    const session = sessionId();
    const started = Date.now();
    const response = await server.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question: simpleQuestion('椿'), sessionId: session } });
    const tookMs = Date.now() - started;
    expect(response.statusCode).toBe(202);
    const run = RunStarted.parse(JSON.parse(response.body));
    expect(run).toMatchObject({ sessionId: session, status: 'running', workflowId: expect.stringMatching(new RegExp(`^rag-${session}-`)) });
    expect(tookMs).toBeGreaterThanOrEqual(1_500);
    expect(tookMs).toBeLessThan(10_000);
    // The run exists and waits for a worker: it is what the caller follows.
    expect((await harness.env.client.workflow.getHandle(run.workflowId).describe()).runId).toBe(run.runId);
    await harness.env.client.workflow.getHandle(run.workflowId).terminate('test cleanup');
  });
});

describe('Trace API', () => {
  test('GET /api/diagnosis/{sessionId}/trace has the published shape, with retrievalDetails parsed', async () => {
    const session = sessionId();
    const first = outcomeOf((await post('/api/runs', { question: clarifyQuestion('二'), sessionId: session })).body);
    const done = outcomeOf((await post(`/api/runs/${first.workflowId}/answer`, { answer: '丹恒' })).body);
    expect(done.status).toBe('completed');
    const other = outcomeOf((await post('/api/runs', { question: simpleQuestion('今汐'), sessionId: session })).body);

    // The worker writes a run's last rows as it settles, just after its outcome is published: wait for them.
    const trace = await pollUntil('both runs completed in the audit', async () => {
      const response = await get(`/api/diagnosis/${session}/trace`);
      expect(response.statusCode).toBe(200);
      const parsed = SessionTrace.parse(JSON.parse(response.body));
      return parsed.runs.filter((run) => run.status === 'completed').length === 2 ? parsed : undefined;
    });
    expect(trace.sessionId).toBe(session);
    expect(new Set(trace.runs.map((run) => run.workflowId))).toEqual(new Set([first.workflowId, other.workflowId]));
    const steps = trace.toolInvocations.filter((row) => row.workflowId === first.workflowId).map((row) => row.step);
    expect(steps).toEqual(expect.arrayContaining(['initial']));
    expect(steps.length).toBeGreaterThanOrEqual(2); // the initial retrieval and the one after the answer
    const row = trace.toolInvocations[0];
    expect(row?.retrievalDetails.audit_schema).toBe('rag_lookup_v1');
    expect(JSON.parse(row?.retrievalDetailsRaw ?? '')).toEqual(row?.retrievalDetails);
    expect(row?.content).toBeNull(); // privacy by default: no query text
    expect(trace.events.map((event) => event.eventType)).toEqual(expect.arrayContaining(['run_started', 'hitl_requested', 'answer_received', 'completed']));
    expect(Object.keys(row ?? {}).sort()).toMatchInlineSnapshot(`
[
  "candidateCount",
  "content",
  "createdAt",
  "durationMs",
  "errorMessage",
  "evidenceCount",
  "outputPreview",
  "relevanceLevel",
  "retrievalDetails",
  "retrievalDetailsRaw",
  "retrievalLayer",
  "runId",
  "step",
  "success",
  "toolName",
  "truncated",
  "workflowId",
]
`);
  });

  test('?runId= narrows the trace to one run; an unknown runId is 404', async () => {
    const session = sessionId();
    const one = outcomeOf((await post('/api/runs', { question: simpleQuestion('长离'), sessionId: session })).body);
    await post('/api/runs', { question: simpleQuestion('折枝'), sessionId: session });
    const narrowed = await pollUntil('the run settled in the audit', async () => {
      const parsed = SessionTrace.parse(JSON.parse((await get(`/api/diagnosis/${session}/trace?runId=${one.runId}`)).body));
      return parsed.runs[0]?.status === 'completed' ? parsed : undefined;
    });
    expect(narrowed.runs.map((run) => run.runId)).toEqual([one.runId]);
    expect(narrowed.toolInvocations.every((row) => row.runId === one.runId)).toBe(true);
    expect(narrowed.events.every((event) => event.runId === one.runId)).toBe(true);
    const unknown = await get(`/api/diagnosis/${session}/trace?runId=00000000-0000-4000-8000-000000000000`);
    expect(unknown.statusCode).toBe(404);
  });
});

describe('progress stream', () => {
  let base: string;
  beforeAll(async () => {
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  /** Reads server-sent events until the stream ends; returns them and the raw text. */
  async function readEvents(url: string, init: RequestInit = {}) {
    const response = await fetch(`${base}${url}`, { headers: bearer('acme'), ...init });
    const text = await response.text();
    const events = text
      .split('\n\n')
      .filter((block) => /^(id|event): /m.test(block))
      .map((block) => {
        const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(block)?.[1];
        return { id: field('id'), event: field('event'), data: JSON.parse(field('data') ?? 'null') as unknown };
      });
    return { response, text, events };
  }

  test('one step event per step, then the outcome, then the end (real HTTP)', async () => {
    const started = RunStarted.parse(
      JSON.parse((await post('/api/runs', { question: simpleQuestion(`${SLOW}吟霖`), sessionId: sessionId(), wait: false })).body),
    );
    const { response, text, events } = await readEvents(`/api/runs/${started.workflowId}/progress`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    const steps = events.filter((event) => event.event === 'step');
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(steps.map((event) => event.id)).toEqual(steps.map((_, i) => String(i)));
    expect(events.at(-1)?.event).toBe('outcome');
    expect(RagOutcome.parse(events.at(-1)?.data)).toMatchObject({ workflowId: started.workflowId, status: 'completed' });
    // The graded run took SLOW_MS: the stream was open long enough for heartbeats (every 300 ms here).
    expect(text).toContain(': heartbeat\n\n');
    // Every step the run recorded was sent once, in order; the answer node's steps come last.
    const progress = await harness.rag.getProgress(started.workflowId);
    expect(steps.map((event) => event.data)).toEqual(progress);
    expect(progress.slice(-2).map((step) => step.label)).toEqual(['正在生成回答...', '回答已生成，引用已校验']);
  });

  test('issue 25 §2: the answer as it is written — sources, deltas that make up the answer, final (not replaced), all before the outcome', async () => {
    // The harness writes a STREAMED question's answer one sentence per STREAMED_DELTA_MS (three sentences).
    const started = RunStarted.parse(JSON.parse((await post('/api/runs', { question: streamedQuestion('吟霖'), sessionId: sessionId(), wait: false })).body));
    const { events } = await readEvents(`/api/runs/${started.workflowId}/progress`);
    const answers = events.filter((event) => event.event === 'answer').map((event) => AnswerStreamMessage.parse(event.data));
    const outcome = RagOutcome.parse(events.at(-1)?.data);
    expect(events.at(-1)?.event).toBe('outcome');
    expect(outcome).toMatchObject({ status: 'completed', route: 'answer' });
    // Every answer event comes before the outcome, and they carry no id (a resumed stream gets the final answer).
    const positions = events.flatMap((event, i) => (event.event === 'answer' ? [i] : []));
    expect(Math.max(...positions)).toBeLessThan(events.length - 1);
    expect(events.filter((event) => event.event === 'answer').every((event) => event.id === undefined)).toBe(true);
    expect(answers.map((message) => message.type)).toEqual(['sources', 'delta', 'delta', 'delta', 'final']);
    expect(answers[0]).toEqual({ type: 'sources', sources: [{ n: 1, filename: 'doc.pdf', page_number: 1, preview: outcome.docs[0]?.text }] });
    const deltas = answers.flatMap((message) => (message.type === 'delta' ? [message.text] : []));
    expect(deltas).toEqual(STREAMED_PIECES);
    expect(deltas.join('')).toBe(outcome.answer?.text);
    expect(answers.at(-1)).toEqual({ type: 'final', text: outcome.answer?.text, citations: outcome.answer?.citations, verification: 'verified', replaced: false });
    // The text streamed while the run was running: the steps of the answer node surround the deltas.
    const stepLabels = events.slice(0, positions[1]).filter((event) => event.event === 'step').map((event) => (event.data as { label: string }).label);
    expect(stepLabels).toContain('正在生成回答...');
    expect(stepLabels).not.toContain('回答已生成，引用已校验');
  });

  test('Last-Event-ID resumes after the last step seen; a settled run streams at once', async () => {
    const done = outcomeOf((await post('/api/runs', { question: simpleQuestion('安可'), sessionId: sessionId() })).body);
    const all = await readEvents(`/api/runs/${done.workflowId}/progress`);
    const resumed = await readEvents(`/api/runs/${done.workflowId}/progress`, { headers: { ...bearer('acme'), 'last-event-id': '1' } });
    expect(resumed.events.filter((event) => event.event === 'step').map((event) => event.id)).toEqual(
      all.events.filter((event) => event.event === 'step').slice(2).map((event) => event.id),
    );
    expect(resumed.events.at(-1)?.event).toBe('outcome');
  });

  test('an awaiting run settles the stream with its outcome', async () => {
    const waiting = outcomeOf((await post('/api/runs', { question: clarifyQuestion('三'), sessionId: sessionId() })).body);
    const { events } = await readEvents(`/api/runs/${waiting.workflowId}/progress`);
    expect(events.at(-1)).toMatchObject({ event: 'outcome', data: { status: 'awaiting_input', hitl: { round: 1 } } });
  });

  test('polling stops when the client disconnects', async () => {
    const started = RunStarted.parse(
      JSON.parse((await post('/api/runs', { question: simpleQuestion(`${SLOW}相里要`), sessionId: sessionId(), wait: false })).body),
    );
    const polls = jest.spyOn(harness.rag, 'getProgress');
    try {
      const controller = new AbortController();
      const response = await fetch(`${base}/api/runs/${started.workflowId}/progress`, { headers: bearer('acme'), signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read(); // the first event(s)
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 300)); // a poll in flight may finish
      const afterAbort = polls.mock.calls.length;
      expect(afterAbort).toBeGreaterThanOrEqual(2);
      await new Promise((resolve) => setTimeout(resolve, 600)); // six poll intervals
      expect(polls.mock.calls.length).toBe(afterAbort);
    } finally {
      polls.mockRestore();
    }
  });
});

describe('OpenAPI, health and the codec endpoint', () => {
  test('/openapi.json lists every route, generated from the zod schemas', async () => {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = JSON.parse(response.body) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown[]; requestBody?: { content: Record<string, { schema: { required?: string[] } }> } }>>;
      components: { securitySchemes: unknown };
    };
    expect(document.openapi).toBe('3.0.3');
    // Outcomes carry the answer (issue 11) in the published contract.
    expect(response.body).toContain('"answer_null_reason"');
    expect(response.body).toContain('"verification"');
    expect(Object.fromEntries(Object.entries(document.paths).map(([route, methods]) => [route, Object.keys(methods)]))).toMatchInlineSnapshot(`
{
  "/api/diagnosis/{sessionId}/trace": [
    "get",
  ],
  "/api/doctor": [
    "get",
  ],
  "/api/kbs": [
    "get",
  ],
  "/api/kbs/{kb}/documents": [
    "get",
  ],
  "/api/kbs/{kb}/documents/{*}": [
    "delete",
  ],
  "/api/runs": [
    "post",
    "get",
  ],
  "/api/runs/compare": [
    "get",
  ],
  "/api/runs/{workflowId}": [
    "get",
  ],
  "/api/runs/{workflowId}/answer": [
    "post",
  ],
  "/api/runs/{workflowId}/cancel": [
    "post",
  ],
  "/api/runs/{workflowId}/detail": [
    "get",
  ],
  "/api/runs/{workflowId}/progress": [
    "get",
  ],
  "/api/sessions/{sessionId}": [
    "delete",
  ],
  "/api/sessions/{sessionId}/turns": [
    "get",
  ],
  "/api/sources": [
    "get",
  ],
  "/api/sources/{source}/run": [
    "post",
  ],
  "/api/sync/sources": [
    "get",
  ],
  "/api/sync/sources/{source}": [
    "get",
  ],
  "/api/sync/sources/{source}/run": [
    "post",
  ],
  "/codec/decode": [
    "post",
  ],
  "/codec/encode": [
    "post",
  ],
  "/healthz": [
    "get",
  ],
  "/openapi.json": [
    "get",
  ],
}
`);
    expect(document.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer' } });
    expect(document.paths['/healthz']?.get?.security).toEqual([]);
    expect(document.paths['/api/runs']?.post?.requestBody?.content['application/json']?.schema.required).toEqual(['question']);
  });

  test('/healthz needs no token', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ status: 'ok' });
  });

  test('the codec endpoint under /codec decrypts a real history payload for a token holder, and for the UI by path', async () => {
    const asked = outcomeOf((await post('/api/runs', { question: simpleQuestion('秧秧'), sessionId: sessionId() })).body);
    const history = await harness.env.client.workflow.getHandle(asked.workflowId).fetchHistory();
    const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const sealed = { payloads: [toJsonPayload({ metadata: input?.metadata ?? {}, data: input?.data ?? new Uint8Array() })] };
    expect(Buffer.from(sealed.payloads[0]?.data ?? '', 'base64').toString('latin1')).not.toContain('workflow');

    const decoded = await post('/codec/decode', sealed);
    expect(decoded.statusCode).toBe(200);
    const plain = JSON.parse(decoded.body) as { payloads: Array<{ data: string }> };
    expect(JSON.parse(Buffer.from(plain.payloads[0]?.data ?? '', 'base64').toString('utf8'))).toMatchObject({ question: simpleQuestion('秧秧') });

    // The Temporal UI: token in the path, a preflight from its origin, then the call.
    const uiPath = `/codec/${TOKENS.globex}/decode`;
    const preflight = await app.inject({ method: 'OPTIONS', url: uiPath, headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    const fromUi = await app.inject({ method: 'POST', url: uiPath, headers: { origin: UI_ORIGIN }, payload: sealed });
    expect(fromUi.statusCode).toBe(200);
    expect(JSON.parse(fromUi.body)).toEqual(plain);

    const anonymous = await app.inject({ method: 'POST', url: '/codec/decode', payload: sealed });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.body).not.toContain(simpleQuestion('秧秧'));
    const wrongPath = await app.inject({ method: 'POST', url: '/codec/not-a-token/decode', payload: sealed });
    expect(wrongPath.statusCode).toBe(401);
  });
});
