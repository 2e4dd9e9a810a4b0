/**
 * The MCP tools over Streamable HTTP at /mcp of the HTTP API (issue 15 §1–2), driven by the SDK's own Client over
 * StreamableHTTPClientTransport with a bearer token, against the real dev server and a worker with the HTTP
 * harness' deterministic models (test/support/http-harness.ts: simple questions are answered, questions with the
 * CLARIFY marker ask "请补充角色名" with options 丹瑾/丹恒 until answered, SLOW ones are graded after 2.5 s). Two
 * tenants, acme and globex: neither sees the other's runs, knowledge bases or MCP sessions.
 */
import type { FastifyInstance } from 'fastify';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { newMcpClient, type Elicit } from '../support/mcp-client';
import { SessionTrace } from '../../core/schemas/audit';
import type { RunResult } from '../../server/mcp/tool-schemas';
import { closedStatus } from '../support/closed-status';
import { pollUntil } from '../support/services';
import { KBS, SLOW, TOKENS, bearer, clarifyQuestion, openHttpHarness, simpleQuestion, type HttpHarness, type Tenant } from '../support/http-harness';
import { sessionId } from '../workflows/harness';

let harness: HttpHarness;
let app: FastifyInstance;
let url: URL;
/**
 * A server with knowledge stores (a stand-in: only the stats and the document records are read, the records for the
 * access lists the stats leave out, issue 44 §4), for the ragtime://kb/{name} resource.
 */
let kbUrl: URL;
const statsOf = async (kb: string) => ({ kb, documents: 3, chunks: { l1: 3, l2: 5, l3: 9 }, bytes: 1234, last_ingest: null });
const unused = async (): Promise<never> => {
  throw new Error('not used by the MCP tests');
};
const clients: Client[] = [];

beforeAll(async () => {
  harness = await openHttpHarness();
  app = harness.server();
  url = new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));
  const withKnowledge = harness.server({ knowledge: { stats: statsOf, list: unused, open: unused, documents: { list: async () => [] }, removeDocument: unused } });
  kbUrl = new URL('/mcp', await withKnowledge.listen({ host: '127.0.0.1', port: 0 }));
}, 120_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await harness?.close();
});


/** The SDK's client in a new MCP session of `tenant`; with `elicit`, it declares form elicitation and answers so. */
async function connectSession(tenant: Tenant, endpoint: URL = url, elicit?: Elicit): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${TOKENS[tenant]}` } } });
  const client = newMcpClient(`ragtime-it-${tenant}`, elicit);
  clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

const connect = async (tenant: Tenant, endpoint: URL = url): Promise<Client> => (await connectSession(tenant, endpoint)).client;

/** A raw JSON-RPC POST to /mcp, as a client that is not the SDK's would send it. */
const rawPost = (endpoint: URL, tenant: Tenant, sessionId: string | undefined, body: unknown) =>
  fetch(endpoint, {
    method: 'POST',
    headers: { ...bearer(tenant), 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
    body: JSON.stringify(body),
  });

type ToolReply = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };
const callRaw = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolReply;
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<RunResult> {
  const reply = await callRaw(client, name, args);
  if (reply.isError) throw new Error(`${name} failed: ${reply.content.map((part) => part.text).join('\n')}`);
  return reply.structuredContent as RunResult;
}

test('no bearer token: 401 before any MCP message is read', async () => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toContain('Bearer');
});

test('tools/list over HTTP: the run tools, with schemas (no search_knowledge on a server given no retriever)', async () => {
  const acme = await connect('acme');
  const { tools } = await acme.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(['answer_clarification', 'ask_knowledge', 'cancel_run', 'get_run']);
  for (const tool of tools) expect(tool.outputSchema?.type).toBe('object');
});

test('ask_knowledge answers in the tenant’s default knowledge base; get_run and the trace resource read it', async () => {
  const acme = await connect('acme');
  const result = await call(acme, 'ask_knowledge', { question: simpleQuestion('丹瑾'), session: sessionId() });
  expect(result).toMatchObject({ status: 'completed', route: 'answer', kb: KBS.default, answer: { text: '丹瑾是湮灭属性角色[1]。' } });
  expect(await call(acme, 'get_run', { run_id: result.run_id })).toMatchObject({ run_id: result.run_id, status: 'completed' });
  const resource = await acme.readResource({ uri: result.trace_uri });
  expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ route: 'answer' });
});

test('clarify, client without elicitation: the question comes back; answer_clarification completes the run', async () => {
  const acme = await connect('acme');
  const asked = await call(acme, 'ask_knowledge', { question: clarifyQuestion('mcp'), session: sessionId() });
  expect(asked).toMatchObject({ status: 'awaiting_input', route: 'clarify', elicited_answers: 0, clarification: { prompt: '请补充角色名', options: ['丹瑾', '丹恒'] } });
  const answered = await call(acme, 'answer_clarification', { run_id: asked.run_id, answer: '1' });
  expect(answered).toMatchObject({ run_id: asked.run_id, status: 'completed', route: 'answer', clarification: null });
});

test('one tenant cannot read, answer or trace another tenant’s run, nor use its knowledge base', async () => {
  const acme = await connect('acme');
  const globex = await connect('globex');
  const asked = await call(acme, 'ask_knowledge', { question: clarifyQuestion('tenant'), session: sessionId() });
  expect(asked.status).toBe('awaiting_input');
  const notFound = `NOT_FOUND: no run ${JSON.stringify(asked.run_id)}; check the workflow id`;

  const read = await callRaw(globex, 'get_run', { run_id: asked.run_id });
  expect({ isError: read.isError, text: read.content[0]?.text }).toEqual({ isError: true, text: notFound });
  const answered = await callRaw(globex, 'answer_clarification', { run_id: asked.run_id, answer: '丹瑾' });
  expect({ isError: answered.isError, text: answered.content[0]?.text }).toEqual({ isError: true, text: notFound });
  await expect(globex.readResource({ uri: asked.trace_uri })).rejects.toThrow(notFound);
  // acme's run still waits: globex's answer was refused before it reached the run.
  expect(await call(acme, 'get_run', { run_id: asked.run_id })).toMatchObject({ status: 'awaiting_input' });

  const otherKb = await callRaw(globex, 'ask_knowledge', { question: simpleQuestion('丹瑾'), kb: KBS.acme });
  expect(otherKb.isError).toBe(true);
  expect(otherKb.content[0]?.text).toBe(`NOT_FOUND: no knowledge base ${JSON.stringify(KBS.acme)}; GET /api/kbs lists yours`);
});

test('cancel_run (issue 43 §6): another tenant gets NOT_FOUND and the run waits on; the owner cancels it; again, nothing changes', async () => {
  const acme = await connect('acme');
  const globex = await connect('globex');
  const asked = await call(acme, 'ask_knowledge', { question: clarifyQuestion('cancel-tool'), session: sessionId() });
  expect(asked.status).toBe('awaiting_input');
  const foreign = await callRaw(globex, 'cancel_run', { run_id: asked.run_id, reason: 'not mine' });
  expect({ isError: foreign.isError, text: foreign.content[0]?.text }).toEqual({ isError: true, text: `NOT_FOUND: no run ${JSON.stringify(asked.run_id)}; check the workflow id` });
  expect(await call(acme, 'get_run', { run_id: asked.run_id })).toMatchObject({ status: 'awaiting_input' });

  const cancelled = await call(acme, 'cancel_run', { run_id: asked.run_id, reason: 'the person left' });
  expect(cancelled).toMatchObject({ run_id: asked.run_id, status: 'failed', clarification: null, error: { type: 'CANCELLED', message: expect.stringContaining('"the person left"') } });
  expect(await closedStatus(harness.env.client.workflow.getHandle(asked.run_id))).toBe('CANCELLED');
  expect(await call(acme, 'cancel_run', { run_id: asked.run_id })).toMatchObject({ status: 'failed', error: { type: 'CANCELLED' } });
});

test('bad arguments are refused with the schema’s message', async () => {
  const acme = await connect('acme');
  const reply = await callRaw(acme, 'answer_clarification', { run_id: 'rag-x', answer: '' });
  expect(reply.isError).toBe(true);
  expect(reply.content[0]?.text).toContain('answer is empty after trimming');
});

test('ragtime://kb/{name}: a tenant reads its own knowledge base’s stats, not another tenant’s', async () => {
  const acme = await connect('acme', kbUrl);
  const globex = await connect('globex', kbUrl);
  const own = await acme.readResource({ uri: `ragtime://kb/${KBS.acme}` });
  expect(JSON.parse((own.contents[0] as { text: string }).text)).toEqual(await statsOf(KBS.acme));
  await expect(globex.readResource({ uri: `ragtime://kb/${KBS.acme}` })).rejects.toThrow(`NOT_FOUND: no knowledge base ${JSON.stringify(KBS.acme)}`);
});

test('progress over HTTP: the run’s rag_step labels arrive as progress notifications on the call’s stream', async () => {
  const acme = await connect('acme');
  const progress: Array<{ progress: number; message?: string }> = [];
  // A SLOW question is graded after 2.5 s, so the steps before the grade are reported while the call is open.
  const reply = (await acme.callTool({ name: 'ask_knowledge', arguments: { question: simpleQuestion(`${SLOW}丹瑾`), session: sessionId() } }, undefined, {
    onprogress: (p) => progress.push(p),
    timeout: 30_000,
  })) as ToolReply;
  expect((reply.structuredContent as RunResult).status).toBe('completed');
  expect(progress.length).toBeGreaterThan(0);
  expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  expect(progress.every((p) => typeof p.message === 'string' && p.message.length > 0)).toBe(true);
});

test('clarify with form elicitation over HTTP: the person picks from the enum and the same call returns the answer', async () => {
  const asked: ElicitRequest[] = [];
  const { client } = await connectSession('acme', url, (request) => {
    asked.push(request);
    return { answer: '丹恒' };
  });
  const result = await call(client, 'ask_knowledge', { question: clarifyQuestion('elicit'), session: sessionId() });
  expect(result).toMatchObject({ status: 'completed', route: 'answer', elicited_answers: 1, clarification: null });
  expect(asked).toHaveLength(1);
  const schema = (asked[0]?.params as unknown as { message: string; requestedSchema: { properties: { answer: { enum: string[] } } } });
  expect(schema.message).toBe('请补充角色名');
  expect(schema.requestedSchema.properties.answer.enum).toEqual(['丹瑾', '丹恒']);
});

test('an MCP session is its tenant’s: another tenant’s token with that session id is refused; DELETE ends it', async () => {
  const { client, transport } = await connectSession('acme');
  const session = transport.sessionId ?? '';
  expect(session).toMatch(/^[0-9a-f-]{36}$/);
  const list = { jsonrpc: '2.0', id: 7, method: 'tools/list' };

  const stolen = await rawPost(url, 'globex', session, list);
  expect(stolen.status).toBe(404);
  expect(((await stolen.json()) as { error: { message: string } }).error.message).toMatch(/^Session not found/);
  // Without a session id, only initialize is accepted.
  expect((await rawPost(url, 'acme', undefined, list)).status).toBe(400);
  // The owner's session still works.
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);

  await transport.terminateSession();
  expect((await rawPost(url, 'acme', session, list)).status).toBe(404);
});

test('an idle session is closed after the bound (mcp.idleSessionMs)', async () => {
  const idle = harness.server({ mcp: { idleSessionMs: 300 } });
  const idleUrl = new URL('/mcp', await idle.listen({ host: '127.0.0.1', port: 0 }));
  const { transport } = await connectSession('acme', idleUrl);
  const session = transport.sessionId ?? '';
  const list = { jsonrpc: '2.0', id: 8, method: 'tools/list' };
  expect((await rawPost(idleUrl, 'acme', session, list)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect((await rawPost(idleUrl, 'acme', session, list)).status).toBe(404);
});

test('tool calls over HTTP are audited, and the Trace API returns them to the tenant that made them', async () => {
  const acme = await connect('acme');
  const session = sessionId();
  const asked = await call(acme, 'ask_knowledge', { question: clarifyQuestion('audit'), session });
  await call(acme, 'answer_clarification', { run_id: asked.run_id, answer: '丹瑾' });
  const read = (tenant: Tenant) => app.inject({ method: 'GET', url: `/api/diagnosis/${session}/trace`, headers: bearer(tenant) });
  const trace = await pollUntil('both calls in the audit', async () => {
    const parsed = SessionTrace.parse(JSON.parse((await read('acme')).body));
    return (parsed.agentToolCalls ?? []).length === 2 && parsed.runs[0]?.status === 'completed' ? parsed : undefined;
  }, { timeoutMs: 10_000, intervalMs: 100 });
  expect(trace.agentToolCalls?.map((row) => [row.toolName, row.workflowId, row.success, row.details.transport, row.details.run_status, row.details.route])).toEqual([
    ['ask_knowledge', asked.run_id, true, 'http', 'awaiting_input', 'clarify'],
    ['answer_clarification', asked.run_id, true, 'http', 'completed', 'answer'],
  ]);
  expect(trace.agentToolCalls?.every((row) => row.content === null)).toBe(true);
  expect((await read('globex')).statusCode).toBe(404);
});

test('cancelling a tool call over HTTP cancels the run (CANCELLED), and the audit says so', async () => {
  const session = sessionId();
  let asked: () => void = () => undefined;
  const elicited = new Promise<void>((resolve) => (asked = resolve));
  const { client } = await connectSession('acme', url, () => {
    asked();
    return new Promise(() => undefined);
  });
  const controller = new AbortController();
  const pending = client.callTool({ name: 'ask_knowledge', arguments: { question: clarifyQuestion('cancel'), session } }, undefined, { signal: controller.signal });
  await elicited;
  controller.abort('the person left');
  await expect(pending).rejects.toThrow();
  const trace = await pollUntil('the cancelled run in the audit', async () => {
    const parsed = SessionTrace.parse(JSON.parse((await app.inject({ method: 'GET', url: `/api/diagnosis/${session}/trace`, headers: bearer('acme') })).body));
    return parsed.runs[0]?.status === 'cancelled' && (parsed.agentToolCalls ?? []).length === 1 ? parsed : undefined;
  }, { timeoutMs: 10_000, intervalMs: 100 });
  expect(trace.agentToolCalls?.[0]).toMatchObject({ toolName: 'ask_knowledge', success: false, errorCode: 'CANCELLED' });
  expect(await closedStatus(harness.env.client.workflow.getHandle(trace.runs[0]?.workflowId ?? ''))).toBe('CANCELLED');
});

test('CORS for browser MCP clients: a preflight from an allowed origin, and Mcp-Session-Id exposed on the response', async () => {
  const origin = 'https://agent.example';
  const cors = harness.server({ corsOrigins: [origin] });
  const corsUrl = new URL('/mcp', await cors.listen({ host: '127.0.0.1', port: 0 }));
  const preflight = await fetch(corsUrl, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-session-id' } });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
  expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
  expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');

  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } } };
  const opened = await fetch(corsUrl, { method: 'POST', headers: { origin, ...bearer('acme'), 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(init) });
  expect(opened.status).toBe(200);
  expect(opened.headers.get('access-control-allow-origin')).toBe(origin);
  expect(opened.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
  expect(opened.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
  await opened.body?.cancel();

  // Another origin gets no CORS headers (the browser then keeps the response from the page).
  const other = await fetch(corsUrl, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
  expect(other.headers.get('access-control-allow-origin')).toBeNull();
});
