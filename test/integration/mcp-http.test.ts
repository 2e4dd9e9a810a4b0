/**
 * The MCP tools over Streamable HTTP at /mcp of the HTTP API (issue 15 §1–2), driven by the SDK's own Client over
 * StreamableHTTPClientTransport with a bearer token, against the real dev server and a worker with the HTTP
 * harness' deterministic models (test/support/http-harness.ts: simple questions are answered, questions with the
 * CLARIFY marker ask "请补充角色名" with options 丹瑾/丹恒 until answered). Two tenants, acme and globex: neither
 * sees the other's runs or knowledge bases.
 */
import type { FastifyInstance } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RunResult } from '../../server/mcp/tool-schemas';
import { KBS, TOKENS, clarifyQuestion, openHttpHarness, simpleQuestion, type HttpHarness, type Tenant } from '../support/http-harness';
import { sessionId } from '../workflows/harness';

let harness: HttpHarness;
let app: FastifyInstance;
let url: URL;
/** A server with knowledge stores (a stand-in: only the stats are read), for the ragtime://kb/{name} resource. */
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
  const withKnowledge = harness.server({ knowledge: { stats: statsOf, list: unused, open: unused, documents: { list: unused }, removeDocument: unused } });
  kbUrl = new URL('/mcp', await withKnowledge.listen({ host: '127.0.0.1', port: 0 }));
}, 120_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await harness?.close();
});

async function connect(tenant: Tenant, endpoint: URL = url): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${TOKENS[tenant]}` } } });
  // Declares elicitation: the stateless HTTP endpoint must not use it (it has no channel back during a call).
  const client = new Client({ name: `ragtime-it-${tenant}`, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  clients.push(client);
  await client.connect(transport);
  return client;
}

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

test('tools/list over HTTP: the run tools, with schemas (no search_knowledge: `ragtime serve` does not embed)', async () => {
  const acme = await connect('acme');
  const { tools } = await acme.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(['answer_clarification', 'ask_knowledge', 'get_run']);
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

test('clarify: the question comes back (no elicitation over stateless HTTP); answer_clarification completes the run', async () => {
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
