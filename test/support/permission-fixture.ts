/**
 * Issue 44 §4's fixture, shared by the API/MCP test and the console test: the dev server, real Milvus collections and
 * a worker whose retrieval is the real retriever on them (createRetriever, both legs, the forced clause inside the
 * search). One tenant, three tokens: `finance` (made by `ragtime token new <tenant> --kb <kb> --groups finance` and
 * configured from the entry it prints), `plain` (an entry without groups) and `hr` (groups hr). Two secret documents
 * carry a unique marker in their text, title, file name and id: one with `acl: [finance]` in its front matter, one
 * with the access list as `ingest --acl finance` gives it (meta acl). A handbook has no list. The finance token's run
 * (`financeRun`) has read a secret document when the fixture is open.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createJinaRerankTransport } from '../../activities/adapters/jina-rerank-transport';
import { ingestActivities } from '../../activities/ingest-activities';
import type { Retriever } from '../../activities/ports';
import { createRetriever } from '../../activities/retrieval/retrieve-documents';
import { ACL_KEY } from '../../core/knowledge/document-access';
import { parseConfig } from '../../core/config';
import { parseApiTokenList } from '../../core/schemas/api-tokens';
import type { HttpServerOptions } from '../../server/http/create-http-server';
import { createTenantDirectory } from '../../server/http/tenant-directory';
import { hashToken } from '../../server/http/token-auth';
import { lazySearch } from '../../server/mcp/lazy-search';
import { runRagtimeInProcess } from './cli-run';
import { openHttpHarness, type HttpHarness } from './http-harness';
import { FakeEmbedder } from './ingest-doubles';
import { realKnowledge, type RealKnowledge } from './real-knowledge';
import { services } from './services';
import { assertServicesReachable } from './worker-process';

export type PermissionBackend = { name: string; databaseUrl?: string };
export const PERMISSION_BACKENDS: PermissionBackend[] = [{ name: 'SQLite' }, { name: 'PostgreSQL', databaseUrl: services.testDatabaseUrl }];

export const PERMISSION_QUESTION = 'What does the ledger say about the merger and the office hours?';
export const HANDBOOK_ID = 'guides/handbook.md';

const silentLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export type PermissionFixture = {
  /** In every name, id, title and text of the secret documents. */
  mark: string;
  secretIds: string[];
  tenant: string;
  kb: string;
  tokens: { finance: string; plain: string; hr: string };
  sessions: { finance: string; plain: string; hr: string };
  harness: HttpHarness;
  app: FastifyInstance;
  /** The server's base URL (it listens on a loopback port). */
  baseUrl: string;
  /** The finance token's run, which read a secret document. */
  financeRun: string;
  /** What the retriever returned, before any redaction, by the groups of the run's forced clause (null: none). */
  retrieved: Array<{ groups: readonly string[] | null; docIds: string[] }>;
  /** POST /api/runs with the token, waiting for the outcome (200 expected). */
  ask(token: string, sessionId: string, extra?: Record<string, unknown>): Promise<{ statusCode: number; body: string; json(): { workflowId: string; docs: unknown[] } }>;
  /** The marker or a secret document's id, if `body` holds one; null when it holds neither. */
  secretIn(body: string): string | null;
  close(): Promise<void>;
};

export const bearerOf = (token: string) => ({ authorization: `Bearer ${token}` });

export async function openPermissionFixture(backend: PermissionBackend, server: Partial<HttpServerOptions> = {}): Promise<PermissionFixture> {
  const tag = `${backend.name.toLowerCase()}${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const mark = `zqmark${tag}`;
  const tenant = `perm-${tag}`;
  const kb = `perm_${tag}`;
  const tokens = { finance: '', plain: `tok-plain-${tag}`, hr: `tok-hr-${tag}` };
  const secretIds = [`vault/${mark}-ledger.md`, `vault/${mark}-minutes.md`];
  const sessions = { finance: `fin-${tag}`, plain: `plain-${tag}`, hr: `hr-${tag}` };
  const retrieved: PermissionFixture['retrieved'] = [];
  let knowledge: RealKnowledge | undefined;

  const embedder = new FakeEmbedder(services.embeddingDim);
  const retriever: Retriever = {
    async retrieve(query, kbName, scope) {
      if (!knowledge) throw new Error('the knowledge stores are not open yet');
      const { leafStore, parentStore } = await knowledge.knowledge.open(kbName ?? kb);
      const result = await createRetriever({ embedder, leafStore, parentStore, rerank: createJinaRerankTransport(), config: parseConfig({}), now: () => Date.now() }).retrieve(query, kbName, scope);
      retrieved.push({ groups: scope?.forced?.find((clause) => clause.key === ACL_KEY)?.anyOf ?? null, docIds: result.docs.map((doc) => String(doc.doc_id ?? doc.file_path ?? doc.filename)) });
      return result;
    },
  };

  await assertServicesReachable();
  const harness = await openHttpHarness({ retriever, ...(backend.databaseUrl ? { databaseUrl: backend.databaseUrl } : {}) });
  const dataDir = path.dirname(harness.location.sqliteFile);
  const close = async () => {
    await knowledge?.knowledge.drop(kb).catch(() => undefined);
    await knowledge?.close();
    await harness.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    knowledge = realKnowledge({ kb, sqliteFile: path.join(dataDir, 'ragtime.sqlite'), databaseUrl: backend.databaseUrl, embedder });
    // The finance token as an operator makes it; its entry is configured as printed (RAGTIME_API_TOKENS' format).
    const made = await runRagtimeInProcess(['token', 'new', tenant, '--kb', kb, '--groups', 'finance'], process.env);
    tokens.finance = /^token: {2}(rt_[\w-]{43})$/m.exec(made.stdout)?.[1] ?? '';
    const entry = parseApiTokenList(/^config: RAGTIME_API_TOKENS=(.+)$/m.exec(made.stdout)?.[1] ?? '');
    const expected = JSON.stringify([{ tenant, sha256: hashToken(tokens.finance), kbs: [kb], groups: ['finance'] }]);
    if (made.code !== 0 || JSON.stringify(entry.tokens) !== expected) throw new Error(`ragtime token new --groups printed an unexpected entry:\n${made.stdout}\n${made.stderr}`);
    const tenants = createTenantDirectory({
      tokens: [...entry.tokens, { tenant, sha256: hashToken(tokens.plain), kbs: [kb] }, { tenant, sha256: hashToken(tokens.hr), kbs: [kb], groups: ['hr'] }],
      owners: harness.owners,
      defaultKb: kb,
    });
    const search = lazySearch(() => ({ retrieve: (query, name, scope) => retriever.retrieve(query, name, scope), close: async () => undefined }), kb);
    const app = harness.server({ tenants, knowledge: knowledge.knowledge, mcp: { search: search.search }, ...server });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });

    const ingest = ingestActivities({ knowledge: knowledge.knowledge });
    await knowledge.knowledge.create(kb);
    const files = [
      { docId: secretIds[0]!, text: `---\nacl: [finance]\ntitle: ${mark} Ledger\n---\n# ${mark} Ledger\n\nThe ledger says the merger closes in March; its code word is ${mark}. The merger price is 41 per share.\n` },
      { docId: secretIds[1]!, text: `# ${mark} Minutes\n\nThe minutes of the board: the ledger and the merger were approved; the code word is ${mark}.\n`, meta: { [ACL_KEY]: ['finance'] } },
      { docId: HANDBOOK_ID, text: '# Handbook\n\nThe office hours are nine to five. The handbook says nothing about a ledger or a merger.\n' },
    ];
    for (const { docId, text, meta } of files) {
      const file = path.join(dataDir, docId);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      await new MockActivityEnvironment(undefined, { logger: silentLogger }).run(ingest.ingestFile, { file, filename: path.basename(docId), docId, kb, ...(meta ? { meta } : {}) });
    }
    await knowledge.knowledge.open(kb).then(({ leafStore }) => leafStore.flush?.());

    const ask: PermissionFixture['ask'] = async (token, sessionId, extra = {}) => {
      const response = await app.inject({ method: 'POST', url: '/api/runs', headers: bearerOf(token), payload: { question: PERMISSION_QUESTION, sessionId, ...extra } });
      if (response.statusCode !== 200) throw new Error(`POST /api/runs: ${response.statusCode} ${response.body.slice(0, 300)}`);
      return response;
    };
    // The control: the finance token's run reads a secret document, and sees it.
    const finance = await ask(tokens.finance, sessions.finance);
    if (!finance.body.includes(mark)) throw new Error(`the finance token's run did not read a secret document: ${finance.body.slice(0, 500)}`);
    return {
      mark,
      secretIds,
      tenant,
      kb,
      tokens,
      sessions,
      harness,
      app,
      baseUrl,
      financeRun: finance.json().workflowId,
      retrieved,
      ask,
      secretIn: (body) => [mark, ...secretIds].find((needle) => body.includes(needle)) ?? null,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
