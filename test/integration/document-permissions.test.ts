/**
 * Issue 44 §4 over every route and tool, on SQLite and PostgreSQL, with the dev server, real Milvus collections and a
 * worker whose retrieval is the real retriever on them (createRetriever, both legs, the forced clause inside the
 * search). One tenant, three tokens: `finance` (groups finance), `plain` (an entry without groups) and `hr` (groups
 * hr). Two secret documents carry a unique marker in their text, title, file name and id: one with `acl: [finance]`
 * in its front matter, one with the access list given as ingest --acl gives it (meta acl). A handbook has no list.
 * The finance token is made by `ragtime token new <tenant> --groups finance` and configured from the entry it prints.
 *
 * The finance token's run reads a secret document (the control: the marker is there for it). Then the plain and the
 * hr tokens ask themselves, with and without filters that try to widen (acl=finance, doc_id=<secret>), and read the
 * finance token's run over every route of the HTTP API and every MCP tool and resource: the marker — and so the
 * secret documents' text, title, file name, quotes and ids — never appears in what they get, the answer they may
 * not see is withheld with answer_null_reason not_visible, and the counts of documents are theirs. The audit records
 * the groups applied to each retrieval.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { clarifyQuestion } from '../support/http-harness';
import { newMcpClient } from '../support/mcp-client';
import { HANDBOOK_ID, PERMISSION_BACKENDS, PERMISSION_QUESTION, bearerOf, openPermissionFixture, type PermissionFixture } from '../support/permission-fixture';

describe.each(PERMISSION_BACKENDS)('permissions on documents on $name', (backend) => {
  let fx: PermissionFixture;
  let plainRun = '';
  /** What a reader got holds neither the marker nor a secret document's id. */
  const expectNoSecret = (what: string, body: string) => expect([what, fx.secretIn(body)]).toEqual([what, null]);

  beforeAll(async () => {
    fx = await openPermissionFixture(backend);
  }, 240_000);
  afterAll(async () => fx?.close(), 60_000);

  test('a token without the group retrieves only what it may: its own runs, and filters that try to widen, never reach a secret document', async () => {
    const plain = await fx.ask(fx.tokens.plain, fx.sessions.plain);
    expectNoSecret('POST /api/runs (plain)', plain.body);
    expect(plain.json().docs.length).toBeGreaterThan(0); // the handbook: retrieval worked, without the secret
    plainRun = plain.json().workflowId;
    expectNoSecret('POST /api/runs (hr)', (await fx.ask(fx.tokens.hr, fx.sessions.hr)).body);
    expectNoSecret('POST /api/runs filters acl=finance', (await fx.ask(fx.tokens.plain, fx.sessions.plain, { filters: { acl: 'finance' } })).body);
    expectNoSecret('POST /api/runs filters doc_id=<secret>', (await fx.ask(fx.tokens.hr, fx.sessions.hr, { filters: { doc_id: fx.secretIds } })).body);
    // The finance token's session: its earlier answer came from a secret document, so another token may not go on in it.
    const refused = await fx.app.inject({ method: 'POST', url: '/api/runs', headers: bearerOf(fx.tokens.plain), payload: { question: PERMISSION_QUESTION, sessionId: fx.sessions.finance } });
    expect([refused.statusCode, refused.json().error]).toEqual([400, 'INVALID_INPUT']);
    expectNoSecret('POST /api/runs in the finance session', refused.body);
    expectNoSecret('POST /api/runs wait: false', (await fx.app.inject({ method: 'POST', url: '/api/runs', headers: bearerOf(fx.tokens.plain), payload: { question: PERMISSION_QUESTION, sessionId: fx.sessions.plain, wait: false } })).body);
    // Inside the search, not after it: what the retriever itself returned to the runs of the tokens without finance.
    const others = fx.retrieved.filter(({ groups }) => groups !== null && !groups.includes('finance'));
    expect(others.length).toBeGreaterThanOrEqual(4);
    expect(others.flatMap(({ docIds }) => docIds).filter((id) => id.includes(fx.mark))).toEqual([]);
    expect(others.some(({ docIds }) => docIds.includes(HANDBOOK_ID))).toBe(true);
    expect(fx.retrieved.find(({ groups }) => groups?.includes('finance'))?.docIds.some((id) => id.includes(fx.mark))).toBe(true);
  }, 120_000);

  test("every HTTP route that reads the finance token's run shows the other tokens nothing of the secret documents", async () => {
    if (plainRun === '') plainRun = (await fx.ask(fx.tokens.plain, fx.sessions.plain)).json().workflowId;
    const routes = [
      ['GET', `/api/runs/${fx.financeRun}`],
      ['GET', `/api/runs/${fx.financeRun}/detail`],
      ['GET', `/api/runs/compare?a=${fx.financeRun}&b=${plainRun}`],
      ['GET', `/api/runs?session=${fx.sessions.finance}`],
      ['GET', '/api/runs'],
      ['GET', `/api/runs/${fx.financeRun}/progress`],
      ['GET', `/api/diagnosis/${fx.sessions.finance}/trace`],
      ['GET', `/api/sessions/${fx.sessions.finance}/turns`],
      ['GET', '/api/kbs'],
      ['GET', `/api/kbs/${fx.kb}/documents`],
    ] as const;
    for (const token of [fx.tokens.plain, fx.tokens.hr]) {
      for (const [method, route] of routes) {
        const response = await fx.app.inject({ method, url: route, headers: bearerOf(token) });
        expect([route, response.statusCode]).toEqual([route, 200]);
        expectNoSecret(`${method} ${route}`, response.body);
      }
      const run = (await fx.app.inject({ method: 'GET', url: `/api/runs/${fx.financeRun}`, headers: bearerOf(token) })).json();
      expect({ answer: run.outcome.answer, reason: run.outcome.answer_null_reason }).toEqual({ answer: null, reason: 'not_visible' });
      const [stats] = (await fx.app.inject({ method: 'GET', url: '/api/kbs', headers: bearerOf(token) })).json().kbs;
      expect(stats.documents).toBe(1);
      for (const id of fx.secretIds) {
        const removed = await fx.app.inject({ method: 'DELETE', url: `/api/kbs/${fx.kb}/documents/${encodeURIComponent(id)}`, headers: bearerOf(token) });
        expect([removed.statusCode, removed.json().error]).toEqual([404, 'NOT_FOUND']);
        expectNoSecret('DELETE document', removed.body.replace(encodeURIComponent(id), '').replace(JSON.stringify(id).slice(1, -1), ''));
      }
    }
    // The finance token reads its run and the documents as they are.
    const own = await fx.app.inject({ method: 'GET', url: `/api/runs/${fx.financeRun}/detail`, headers: bearerOf(fx.tokens.finance) });
    expect(own.body).toContain(fx.mark);
    const [stats] = (await fx.app.inject({ method: 'GET', url: '/api/kbs', headers: bearerOf(fx.tokens.finance) })).json().kbs;
    expect(stats.documents).toBe(3);
  }, 120_000);

  test('every MCP tool and resource shows the other tokens nothing of the secret documents', async () => {
    for (const token of [fx.tokens.plain, fx.tokens.hr]) {
      const client: Client = newMcpClient(`ragtime-it-permissions-${token}`);
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', fx.baseUrl), { requestInit: { headers: bearerOf(token) } }));
      try {
        const calls: Array<[string, Record<string, unknown>]> = [
          ['search_knowledge', { query: `ledger merger ${fx.mark}` }],
          ['search_knowledge', { query: 'ledger merger', filters: { acl: 'finance' } }],
          ['ask_knowledge', { question: PERMISSION_QUESTION }],
          ['ask_knowledge', { question: PERMISSION_QUESTION, filters: { doc_id: fx.secretIds } }],
          ['get_run', { run_id: fx.financeRun }],
          ['cancel_run', { run_id: fx.financeRun }],
        ];
        for (const [name, args] of calls) {
          const reply = await client.callTool({ name, arguments: args });
          const body = JSON.stringify(reply).replaceAll(`ledger merger ${fx.mark}`, ''); // the query the caller sent is not the document's
          expect([name, (reply as { isError?: boolean }).isError ?? false]).toEqual([name, false]);
          expectNoSecret(`MCP ${name} ${JSON.stringify(args)}`, body);
        }
        if (token === fx.tokens.plain) {
          // A clarification the finance token's run asks, answered by this token: neither the progress notifications
          // (steps, the answer as it is written) nor the result hold the secret.
          const waiting = (await fx.ask(fx.tokens.finance, `${fx.sessions.finance}-clarify`, { question: clarifyQuestion(fx.mark.slice(-6)) })).json() as { workflowId: string; status?: string };
          expect(waiting.status).toBe('awaiting_input');
          const notes: string[] = [];
          const answered = await client.callTool({ name: 'answer_clarification', arguments: { run_id: waiting.workflowId, answer: '丹瑾' } }, undefined, { onprogress: (p) => void notes.push(String(p.message)), timeout: 60_000 });
          expect(notes.length).toBeGreaterThan(0);
          expectNoSecret('MCP answer_clarification progress', JSON.stringify(notes));
          expectNoSecret('MCP answer_clarification', JSON.stringify(answered));
        }
        // The finance token's session holds an answer from a secret document: no run goes on in it for this token.
        const refused = (await client.callTool({ name: 'ask_knowledge', arguments: { question: PERMISSION_QUESTION, session: fx.sessions.finance } })) as { isError?: boolean; content: Array<{ text?: string }> };
        expect([refused.isError, refused.content[0]?.text]).toEqual([true, expect.stringContaining('INVALID_INPUT')]);
        expectNoSecret('MCP ask_knowledge in the finance session', JSON.stringify(refused));
        for (const uri of [`ragtime://runs/${fx.financeRun}/trace`, `ragtime://kb/${fx.kb}`]) {
          expectNoSecret(`MCP resource ${uri}`, JSON.stringify(await client.readResource({ uri })));
        }
        expectNoSecret('MCP tools/list', JSON.stringify(await client.listTools()));
        expectNoSecret('MCP resources/list', JSON.stringify(await client.listResources()));
        const [contents] = (await client.readResource({ uri: `ragtime://kb/${fx.kb}` })).contents;
        const stats = JSON.parse(contents && 'text' in contents ? contents.text : '{}');
        expect(stats.documents).toBe(1);
      } finally {
        await client.close();
      }
    }
  }, 180_000);

  test('the audit records the groups applied to each retrieval', async () => {
    // The distinct groups of a session's retrievals (one per run here: each was answered from its first retrieval).
    const groupsOf = async (sessionId: string) => [...new Set((await fx.harness.audit.sessionTrace(sessionId)).toolInvocations.map((call) => JSON.stringify(call.retrievalDetails?.access_groups)))];
    expect(await groupsOf(fx.sessions.finance)).toEqual(['["finance"]']);
    expect(await groupsOf(fx.sessions.plain)).toEqual(['[]']);
    expect(await groupsOf(fx.sessions.hr)).toEqual(['["hr"]']);
  }, 60_000);
});
