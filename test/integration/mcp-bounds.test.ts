/**
 * An oversized run through the MCP tools (issue 15 §2, "an oversized result bounded"): the retriever returns 20
 * evidence chunks of 2,000+ characters each, and the tool result over Streamable HTTP holds at most MCP_MAX_EVIDENCE
 * items of at most MCP_EVIDENCE_CHARS characters, with evidence_total saying how many the run holds. Real dev
 * server and worker (test/support/http-harness.ts), deterministic models.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_EVIDENCE_CHARS, MCP_MAX_EVIDENCE, type RunResult } from '../../server/mcp/tool-schemas';
import { TOKENS, openHttpHarness, simpleQuestion, type HttpHarness } from '../support/http-harness';
import { chunk, metaM0 } from '../support/scenario';
import { sessionId } from '../workflows/harness';

const DOCS = 20;
const longText = (i: number) => `${i} 号文档：${'丹瑾是湮灭属性角色。'.repeat(200)}`;

let harness: HttpHarness;
let client: Client;

beforeAll(async () => {
  harness = await openHttpHarness({
    retriever: { retrieve: async () => ({ docs: Array.from({ length: DOCS }, (_, i) => chunk(longText(i))), meta: metaM0(DOCS) }) },
  });
  const url = new URL('/mcp', await harness.server().listen({ host: '127.0.0.1', port: 0 }));
  client = new Client({ name: 'ragtime-it-bounds', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKENS.acme}` } } }));
}, 120_000);
afterAll(async () => {
  await client?.close();
  await harness?.close();
});

test('20 evidence chunks of 2,000+ characters: at most 8 items of at most 600 characters in the result', async () => {
  const reply = await client.callTool({ name: 'ask_knowledge', arguments: { question: simpleQuestion('丹瑾'), session: sessionId() } });
  const result = reply.structuredContent as RunResult;
  expect(result).toMatchObject({ status: 'completed', route: 'answer', evidence_total: DOCS });
  expect(result.evidence).toHaveLength(MCP_MAX_EVIDENCE);
  for (const item of result.evidence) {
    expect([...item.text]).toHaveLength(MCP_EVIDENCE_CHARS);
    expect(item.text.endsWith('…')).toBe(true);
  }
  // The whole reply stays small: 8 × 600 characters of evidence and the rest of the projection, twice (text + structure).
  expect(JSON.stringify(reply).length).toBeLessThan(40_000);
});
