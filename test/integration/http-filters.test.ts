/**
 * Issue 44 §2 over the HTTP API and MCP (Streamable HTTP at /mcp), against the real dev server and a worker with the
 * HTTP harness' deterministic models: `filters` in POST /api/runs and in ask_knowledge reach every retrieval of the
 * run as lists; a malformed filter is 400 INVALID_INPUT (HTTP) or a tool error (MCP), and no run starts. The
 * retriever records the scope it is given (Milvus' side of filters: test/integration/metadata-filters.test.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RetrievalScope, Retriever } from '../../activities/ports';
import { accessClause } from '../../core/knowledge/document-access';
import { newMcpClient } from '../support/mcp-client';
import { TOKENS, bearer, httpRetriever, openHttpHarness, simpleQuestion, type HttpHarness } from '../support/http-harness';

const scopes: Array<{ query: string; scope: RetrievalScope | undefined }> = [];
const recording: Retriever = {
  async retrieve(query, kb, scope) {
    scopes.push({ query, scope });
    return httpRetriever.retrieve(query, kb, scope);
  },
};

let harness: HttpHarness;
let app: FastifyInstance;
let client: Client;

beforeAll(async () => {
  harness = await openHttpHarness({ retriever: recording });
  app = harness.server();
  const url = new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));
  client = newMcpClient('ragtime-it-filters');
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKENS.acme}` } } }));
}, 120_000);
afterAll(async () => {
  await client?.close();
  await harness?.close();
});

const post = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload });
const scopeOf = (query: string) => scopes.find((entry) => entry.query === query)?.scope;

test('POST /api/runs with filters: the run retrieves with them, a value or a list each', async () => {
  const question = simpleQuestion('丹瑾 filters');
  const response = await post({ question, filters: { product: 'atlas', lang: ['en', 'zh'] } });
  expect(response.statusCode).toBe(200);
  // issue 44 §4: and the token's groups (none here) as the forced clause, after them.
  expect(scopeOf(question)).toEqual({ filters: { product: ['atlas'], lang: ['en', 'zh'] }, forced: [accessClause([])] });
}, 60_000);

test.each([
  [{ product: [] }, 'product'],
  [{ 'a b': 'x' }, 'filters'],
  [{ product: 'x\u0007' }, 'control character'],
])('a malformed filter %j is 400 INVALID_INPUT and starts nothing', async (filters, says) => {
  const question = simpleQuestion(`丹瑾 bad ${JSON.stringify(filters)}`);
  const response = await post({ question, filters });
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({ error: 'INVALID_INPUT' });
  expect(response.body).toContain(says);
  expect(scopeOf(question)).toBeUndefined();
}, 30_000);

test('MCP ask_knowledge with filters retrieves with them; a malformed one is refused before a run starts', async () => {
  const question = simpleQuestion('丹瑾 mcp filters');
  const reply = (await client.callTool({ name: 'ask_knowledge', arguments: { question, filters: { product: ['atlas', 'zephyr'] } } })) as { isError?: boolean };
  expect(reply.isError).toBeFalsy();
  expect(scopeOf(question)).toEqual({ filters: { product: ['atlas', 'zephyr'] }, forced: [accessClause([])] });

  const bad = simpleQuestion('丹瑾 mcp bad');
  const refused = (await client.callTool({ name: 'ask_knowledge', arguments: { question: bad, filters: { 'no spaces': 'x' } } })) as { isError?: boolean; content: Array<{ text?: string }> };
  expect(refused.isError).toBe(true);
  expect(refused.content[0]?.text).toContain('filters.no spaces');
  expect(scopeOf(bad)).toBeUndefined();
}, 60_000);
