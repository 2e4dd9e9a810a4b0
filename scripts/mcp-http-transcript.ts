/*
 * Prints a real Streamable HTTP session against /mcp (docs/MCP.md's transcript): initialize, a tool call with progress,
 * another tenant's token on the session, DELETE. Usage: npx tsx scripts/mcp-http-transcript.ts (services up: `make up`).
 * It runs the HTTP test harness (test/support/http-harness.ts): a worker with deterministic models, tenants acme and globex.
 */
import { SLOW, TOKENS, openHttpHarness, simpleQuestion } from '../test/support/http-harness';

async function main() {
  const harness = await openHttpHarness();
  const app = harness.server();
  const url = new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));
  const post = async (token: string, body: unknown, session?: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.status, session: response.headers.get('mcp-session-id'), type: response.headers.get('content-type'), text: await response.text() };
  };
  const show = (label: string, r: { status: number; session: string | null; type: string | null; text: string }) =>
    console.log(`--> ${label}\n<-- ${r.status} ${r.type ?? ''}${r.session ? ` mcp-session-id: ${r.session}` : ''}\n${r.text.trim()}\n`);
  const init = await post(TOKENS.acme, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl-like', version: '1' } } });
  show('POST /mcp initialize (acme token)', init);
  const session = init.session ?? '';
  show('POST /mcp notifications/initialized', await post(TOKENS.acme, { jsonrpc: '2.0', method: 'notifications/initialized' }, session));
  show('POST /mcp tools/call ask_knowledge (progressToken p1)', await post(TOKENS.acme, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask_knowledge', arguments: { question: simpleQuestion(`${SLOW}丹瑾`), session: 'transcript-1' }, _meta: { progressToken: 'p1' } } }, session));
  show('POST /mcp tools/list with globex token and acme session id', await post(TOKENS.globex, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, session));
  const del = await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${TOKENS.acme}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
  console.log(`--> DELETE /mcp (acme)\n<-- ${del.status}\n${(await del.text()).trim()}\n`);
  show('POST /mcp tools/list after DELETE', await post(TOKENS.acme, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, session));
  await harness.close();
}
main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
