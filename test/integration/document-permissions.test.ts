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
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createJinaRerankTransport } from '../../activities/adapters/jina-rerank-transport';
import { ingestActivities } from '../../activities/ingest-activities';
import type { Retriever } from '../../activities/ports';
import { createRetriever } from '../../activities/retrieval/retrieve-documents';
import { parseConfig } from '../../core/config';
import { parseApiTokenList } from '../../core/schemas/api-tokens';
import { createTenantDirectory } from '../../server/http/tenant-directory';
import { hashToken } from '../../server/http/token-auth';
import { lazySearch } from '../../server/mcp/lazy-search';
import { runRagtimeInProcess } from '../support/cli-run';
import { openHttpHarness, type HttpHarness } from '../support/http-harness';
import { FakeEmbedder } from '../support/ingest-doubles';
import { newMcpClient } from '../support/mcp-client';
import { realKnowledge, type RealKnowledge } from '../support/real-knowledge';
import { services } from '../support/services';
import { assertServicesReachable } from '../support/worker-process';

type Backend = { name: string; databaseUrl?: string };
const BACKENDS: Backend[] = [{ name: 'SQLite' }, { name: 'PostgreSQL', databaseUrl: services.testDatabaseUrl }];

const silentLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const QUESTION = 'What does the ledger say about the merger and the office hours?';

describe.each(BACKENDS)('permissions on documents on $name', (backend) => {
  const tag = `${backend.name.toLowerCase()}${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const MARK = `zqmark${tag}`;
  const tenant = `perm-${tag}`;
  const kb = `perm_${tag}`;
  const tokens = { finance: `tok-fin-${tag}`, plain: `tok-plain-${tag}`, hr: `tok-hr-${tag}` };
  const secretIds = [`vault/${MARK}-ledger.md`, `vault/${MARK}-minutes.md`];
  const sessions = { finance: `fin-${tag}`, plain: `plain-${tag}`, hr: `hr-${tag}` };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  let harness: HttpHarness;
  let app: FastifyInstance;
  let url: URL;
  let knowledge: RealKnowledge | undefined;
  let financeRun = '';
  let plainRun = '';

  // The worker's retrieval: the real retriever on this knowledge base's stores (so the forced clause runs in Milvus).
  const embedder = new FakeEmbedder(services.embeddingDim);
  const retriever: Retriever = {
    async retrieve(query, kbName, scope) {
      if (!knowledge) throw new Error('the knowledge stores are not open yet');
      const { leafStore, parentStore } = await knowledge.knowledge.open(kbName ?? kb);
      const result = await createRetriever({ embedder, leafStore, parentStore, rerank: createJinaRerankTransport(), config: parseConfig({}), now: () => Date.now() }).retrieve(query, kbName, scope);
      retrieved.push({ groups: scope?.forced?.find((clause) => clause.key === 'acl')?.anyOf ?? null, docIds: result.docs.map((doc) => String(doc.doc_id ?? doc.file_path ?? doc.filename)) });
      return result;
    },
  };
  /** What the retriever returned, before any redaction, by the groups of the forced clause (null: none). */
  const retrieved: Array<{ groups: readonly string[] | null; docIds: string[] }> = [];

  const ask = async (token: string, sessionId: string, extra: Record<string, unknown> = {}) => {
    const response = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer(token), payload: { question: QUESTION, sessionId, ...extra } });
    expect([response.statusCode, response.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
    return response;
  };
  /** What a reader got, as one string: the marker is in every name, id and text of the secret documents. */
  const expectNoSecret = (what: string, body: string) => {
    expect([what, body.includes(MARK)]).toEqual([what, false]);
    for (const id of secretIds) expect([what, body.includes(id)]).toEqual([what, false]);
  };

  beforeAll(async () => {
    await assertServicesReachable();
    harness = await openHttpHarness({ retriever, ...(backend.databaseUrl ? { databaseUrl: backend.databaseUrl } : {}) });
    const dataDir = path.dirname(harness.location.sqliteFile);
    knowledge = realKnowledge({ kb, sqliteFile: path.join(dataDir, 'ragtime.sqlite'), databaseUrl: backend.databaseUrl, embedder });
    // The finance token as an operator makes it: ragtime token new <tenant> --kb <kb> --groups finance, whose entry
    // is configured as printed (RAGTIME_API_TOKENS' format).
    const made = await runRagtimeInProcess(['token', 'new', tenant, '--kb', kb, '--groups', 'finance'], process.env);
    expect([made.code, made.stderr]).toEqual([0, '']);
    tokens.finance = /^token: {2}(rt_[\w-]{43})$/m.exec(made.stdout)?.[1] ?? '';
    const entry = parseApiTokenList(/^config: RAGTIME_API_TOKENS=(.+)$/m.exec(made.stdout)?.[1] ?? '');
    expect(entry).toEqual({ tokens: [{ tenant, sha256: hashToken(tokens.finance), kbs: [kb], groups: ['finance'] }], problems: [] });
    const tenants = createTenantDirectory({
      tokens: [
        ...entry.tokens,
        { tenant, sha256: hashToken(tokens.plain), kbs: [kb] },
        { tenant, sha256: hashToken(tokens.hr), kbs: [kb], groups: ['hr'] },
      ],
      owners: harness.owners,
      defaultKb: kb,
    });
    const search = lazySearch(() => ({ retrieve: (query, name, scope) => retriever.retrieve(query, name, scope), close: async () => undefined }), kb);
    app = harness.server({ tenants, knowledge: knowledge.knowledge, mcp: { search: search.search } });
    url = new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));

    const ingest = ingestActivities({ knowledge: knowledge.knowledge });
    await knowledge.knowledge.create(kb);
    mkdirSync(path.join(dataDir, 'vault'), { recursive: true });
    const files = [
      { docId: secretIds[0]!, text: `---\nacl: [finance]\ntitle: ${MARK} Ledger\n---\n# ${MARK} Ledger\n\nThe ledger says the merger closes in March; its code word is ${MARK}. The merger price is 41 per share.\n` },
      { docId: secretIds[1]!, text: `# ${MARK} Minutes\n\nThe minutes of the board: the ledger and the merger were approved; the code word is ${MARK}.\n`, meta: { acl: ['finance'] } },
      { docId: 'guides/handbook.md', text: '# Handbook\n\nThe office hours are nine to five. The handbook says nothing about a ledger or a merger.\n' },
    ];
    for (const { docId, text, meta } of files) {
      const file = path.join(dataDir, docId);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      await new MockActivityEnvironment(undefined, { logger: silentLogger }).run(ingest.ingestFile, { file, filename: path.basename(docId), docId, kb, ...(meta ? { meta } : {}) });
    }
    await knowledge.knowledge.open(kb).then(({ leafStore }) => leafStore.flush?.());

    // The control: the finance token's run reads a secret document, and sees it.
    const finance = await ask(tokens.finance, sessions.finance);
    expect(finance.body).toContain(MARK);
    financeRun = finance.json().workflowId;
  }, 240_000);

  afterAll(async () => {
    await knowledge?.knowledge.drop(kb).catch(() => undefined);
    await knowledge?.close();
    const dataDir = harness ? path.dirname(harness.location.sqliteFile) : null;
    await harness?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  test('a token without the group retrieves only what it may: its own runs, and filters that try to widen, never reach a secret document', async () => {
    const plain = await ask(tokens.plain, sessions.plain);
    expectNoSecret('POST /api/runs (plain)', plain.body);
    expect(plain.json().docs.length).toBeGreaterThan(0); // the handbook: retrieval worked, without the secret
    plainRun = plain.json().workflowId;
    expectNoSecret('POST /api/runs (hr)', (await ask(tokens.hr, sessions.hr)).body);
    expectNoSecret('POST /api/runs filters acl=finance', (await ask(tokens.plain, sessions.plain, { filters: { acl: 'finance' } })).body);
    expectNoSecret('POST /api/runs filters doc_id=<secret>', (await ask(tokens.hr, sessions.hr, { filters: { doc_id: secretIds } })).body);
    expectNoSecret('POST /api/runs wait: false', (await app.inject({ method: 'POST', url: '/api/runs', headers: bearer(tokens.plain), payload: { question: QUESTION, sessionId: sessions.plain, wait: false } })).body);
    // Inside the search, not after it: what the retriever itself returned to the runs of the tokens without finance.
    const others = retrieved.filter(({ groups }) => groups !== null && !groups.includes('finance'));
    expect(others.length).toBeGreaterThanOrEqual(4);
    expect(others.flatMap(({ docIds }) => docIds).filter((id) => id.includes(MARK))).toEqual([]);
    expect(others.some(({ docIds }) => docIds.includes('guides/handbook.md'))).toBe(true);
    expect(retrieved.find(({ groups }) => groups?.includes('finance'))?.docIds.some((id) => id.includes(MARK))).toBe(true);
  }, 120_000);

  test("every HTTP route that reads the finance token's run shows the other tokens nothing of the secret documents", async () => {
    if (plainRun === '') plainRun = (await ask(tokens.plain, sessions.plain)).json().workflowId;
    const routes = [
      ['GET', `/api/runs/${financeRun}`],
      ['GET', `/api/runs/${financeRun}/detail`],
      ['GET', `/api/runs/compare?a=${financeRun}&b=${plainRun}`],
      ['GET', `/api/runs?session=${sessions.finance}`],
      ['GET', '/api/runs'],
      ['GET', `/api/runs/${financeRun}/progress`],
      ['GET', `/api/diagnosis/${sessions.finance}/trace`],
      ['GET', `/api/sessions/${sessions.finance}/turns`],
      ['GET', '/api/kbs'],
      ['GET', `/api/kbs/${kb}/documents`],
    ] as const;
    for (const token of [tokens.plain, tokens.hr]) {
      for (const [method, route] of routes) {
        const response = await app.inject({ method, url: route, headers: bearer(token) });
        expect([route, response.statusCode]).toEqual([route, 200]);
        expectNoSecret(`${method} ${route}`, response.body);
      }
      const run = (await app.inject({ method: 'GET', url: `/api/runs/${financeRun}`, headers: bearer(token) })).json();
      expect({ answer: run.outcome.answer, reason: run.outcome.answer_null_reason }).toEqual({ answer: null, reason: 'not_visible' });
      const [stats] = (await app.inject({ method: 'GET', url: '/api/kbs', headers: bearer(token) })).json().kbs;
      expect(stats.documents).toBe(1);
      for (const id of secretIds) {
        const removed = await app.inject({ method: 'DELETE', url: `/api/kbs/${kb}/documents/${encodeURIComponent(id)}`, headers: bearer(token) });
        expect([removed.statusCode, removed.json().error]).toEqual([404, 'NOT_FOUND']);
        expectNoSecret('DELETE document', removed.body.replace(encodeURIComponent(id), '').replace(JSON.stringify(id).slice(1, -1), ''));
      }
    }
    // The finance token reads its run and the documents as they are.
    const own = await app.inject({ method: 'GET', url: `/api/runs/${financeRun}/detail`, headers: bearer(tokens.finance) });
    expect(own.body).toContain(MARK);
    const [stats] = (await app.inject({ method: 'GET', url: '/api/kbs', headers: bearer(tokens.finance) })).json().kbs;
    expect(stats.documents).toBe(3);
  }, 120_000);

  test('every MCP tool and resource shows the other tokens nothing of the secret documents', async () => {
    for (const token of [tokens.plain, tokens.hr]) {
      const client: Client = newMcpClient(`ragtime-it-permissions-${token}`);
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: bearer(token) } }));
      try {
        const calls: Array<[string, Record<string, unknown>]> = [
          ['search_knowledge', { query: `ledger merger ${MARK}` }],
          ['search_knowledge', { query: 'ledger merger', filters: { acl: 'finance' } }],
          ['ask_knowledge', { question: QUESTION }],
          ['ask_knowledge', { question: QUESTION, filters: { doc_id: secretIds } }],
          ['get_run', { run_id: financeRun }],
          ['cancel_run', { run_id: financeRun }],
        ];
        for (const [name, args] of calls) {
          const reply = await client.callTool({ name, arguments: args });
          const body = JSON.stringify(reply).replaceAll(`ledger merger ${MARK}`, ''); // the query the caller sent is not the document's
          expect([name, (reply as { isError?: boolean }).isError ?? false]).toEqual([name, false]);
          expectNoSecret(`MCP ${name} ${JSON.stringify(args)}`, body);
        }
        for (const uri of [`ragtime://runs/${financeRun}/trace`, `ragtime://kb/${kb}`]) {
          expectNoSecret(`MCP resource ${uri}`, JSON.stringify(await client.readResource({ uri })));
        }
        expectNoSecret('MCP tools/list', JSON.stringify(await client.listTools()));
        expectNoSecret('MCP resources/list', JSON.stringify(await client.listResources()));
        const [contents] = (await client.readResource({ uri: `ragtime://kb/${kb}` })).contents;
        const stats = JSON.parse(contents && 'text' in contents ? contents.text : '{}');
        expect(stats.documents).toBe(1);
      } finally {
        await client.close();
      }
    }
  }, 180_000);

  test('the audit records the groups applied to each retrieval', async () => {
    // The distinct groups of a session's retrievals (one per run here: each was answered from its first retrieval).
    const groupsOf = async (sessionId: string) => [...new Set((await harness.audit.sessionTrace(sessionId)).toolInvocations.map((call) => JSON.stringify(call.retrievalDetails?.access_groups)))];
    expect(await groupsOf(sessions.finance)).toEqual(['["finance"]']);
    expect(await groupsOf(sessions.plain)).toEqual(['[]']);
    expect(await groupsOf(sessions.hr)).toEqual(['["hr"]']);
  }, 60_000);
});
