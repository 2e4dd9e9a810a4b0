/**
 * End to end (issue 15 §2): `ragtime mcp` as an MCP client starts it — a subprocess speaking JSON-RPC on stdio —
 * driven by the SDK's own Client over StdioClientTransport, against the real local services and a real
 * `ragtime worker` subprocess with the offline policy provider on a task queue of its own. The sample knowledge base
 * is ingested once through `ragtime ingest`.
 *
 * Expected routes: docs/offline-policy.md on samples/knowledge (as in test/e2e/cli.test.ts): the warranty of the
 * Aurora X2 is answered; "怎么重置管理密码？" matches several products' manuals, so it asks which (scope_select).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Connection, Client as TemporalClient } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { newMcpClient, type Elicit } from '../support/mcp-client';
import { createAuditStore, type SqlAuditStore } from '../../activities/adapters/sql-audit-store';
import type { SessionTrace } from '../../core/schemas/audit';
import { hashToken } from '../../server/http/token-auth';
import type { RunResult, SearchResult } from '../../server/mcp/tool-schemas';
import { closedStatus } from '../support/closed-status';
import { newMilvusClient } from '../support/milvus';
import { REPO_ROOT, pollUntil, services } from '../support/services';
import { RAGTIME_BIN, assertServicesReachable, serviceEnvironment, startWorkerProcess, stopWorkerProcess, tail } from '../support/worker-process';

jest.setTimeout(60_000);

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `e2e_mcp_${RUN}`;
const QUEUE = `e2e-mcp-${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-e2e-mcp-'));
const env: NodeJS.ProcessEnv = { ...serviceEnvironment({ collection: COLLECTION, dataDir }), TEMPORAL_TASK_QUEUE: QUEUE, MODEL_PROVIDER: 'offline' };

const ANSWERED = 'Aurora X2 路由器的保修期是多久？';
const SCOPED = '怎么重置管理密码？';

let worker: ChildProcess | null = null;
const clients: Client[] = [];

function ingest(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RAGTIME_BIN, 'ingest', 'samples/knowledge', '--json'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The SDK's client on a fresh `node bin/ragtime.js mcp`; with `elicit`, it declares form elicitation and answers so. */
async function connect(elicit?: Elicit): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RAGTIME_BIN, 'mcp'],
    cwd: REPO_ROOT,
    env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = newMcpClient('ragtime-e2e', elicit);
  clients.push(client);
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

type ToolReply = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };

async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const reply = (await client.callTool({ name, arguments: args })) as ToolReply;
  if (reply.isError) throw new Error(`${name} failed: ${reply.content.map((part) => part.text).join('\n')}`);
  return reply.structuredContent as T;
}

let plain: Client;
let plainStderr: () => string;
/** The audit store the worker and `ragtime mcp` write (RAGTIME_DATA_DIR/audit.sqlite): what the Trace API reads. */
let audit: SqlAuditStore;
let temporalConnection: Connection | null = null;

beforeAll(async () => {
  await assertServicesReachable();
  // The worker creates the collection at start-up; ingestion runs on it (minutes when the embeddings server is busy).
  worker = (await startWorkerProcess(env)).child;
  const ingested = await ingest();
  expect({ code: ingested.code, tail: ingested.code === 0 ? '' : tail(ingested.output) }).toEqual({ code: 0, tail: '' });
  ({ client: plain, stderr: plainStderr } = await connect());
  audit = createAuditStore({ sqliteFile: path.join(dataDir, 'audit.sqlite'), includeContent: false });
}, 600_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await audit?.close();
  await temporalConnection?.close();
  if (worker) await stopWorkerProcess(worker);
  const milvus = newMilvusClient();
  await milvus.dropCollection({ collection_name: COLLECTION }).catch(() => undefined);
  await milvus.closeConnection();
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

test('tools/list: every tool with an input schema, an output schema and a description', async () => {
  const { tools } = await plain.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(['answer_clarification', 'ask_knowledge', 'cancel_run', 'get_run', 'search_knowledge']);
  for (const tool of tools) {
    expect(tool.description?.length).toBeGreaterThan(100);
    expect(tool.outputSchema?.type).toBe('object');
  }
  const ask = tools.find((tool) => tool.name === 'ask_knowledge');
  expect(ask?.inputSchema).toMatchObject({ type: 'object', required: ['question'], properties: { question: { type: 'string', maxLength: 2000 } } });
  expect(Object.keys(ask?.inputSchema.properties ?? {}).sort()).toEqual(['filters', 'kb', 'question', 'session']);
});

test('ask_knowledge answers with citations and bounded evidence, reporting progress; get_run and the trace resource show the same run', async () => {
  const progress: Array<{ progress: number; message?: string }> = [];
  // onprogress makes the SDK send a progressToken: the run's rag_step labels come back as progress notifications.
  const reply = (await plain.callTool({ name: 'ask_knowledge', arguments: { question: ANSWERED } }, undefined, { onprogress: (p) => progress.push(p) })) as ToolReply;
  const result = reply.structuredContent as RunResult;
  expect(progress.length).toBeGreaterThan(0);
  expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  expect(progress.every((p) => typeof p.message === 'string' && p.message.length > 0)).toBe(true);
  expect(result).toMatchObject({ status: 'completed', route: 'answer', retrieval_status: 'answerable', clarification: null, error: null, degraded: null });
  expect(result.answer?.text).toContain('2 年保修');
  // Issue 33 §6: what the check means, and the grade's confidence beside it.
  expect(result.answer).toMatchObject({ citation_check: 'citations verified', grade_confidence: expect.any(Number) });
  // Issue 25 §2: the same notifications carry the answer as it was written — its sources, its text, then the end;
  // the text they carry is the recorded answer's.
  const messages = progress.map((p) => p.message ?? '');
  expect(messages.some((message) => message.startsWith('✎📚 [1] Aurora X2 路由器.md'))).toBe(true);
  // Issue 33 §3: in the order the run made them — the steps up to the answer's, then its sources and text, the end
  // last. (Before, the answer's notifications came first and the steps after them.)
  const answerStep = messages.findIndex((message) => message.includes('正在生成回答'));
  expect(answerStep).toBeGreaterThan(messages.findIndex((message) => message.includes('正在评估证据质量')));
  expect(answerStep).toBeLessThan(messages.findIndex((message) => message.startsWith('✎📚')));
  expect(messages.at(-1)).toMatch(/^✎✔/);
  // Issue 33 §2: a call that names no session is a conversation of its own, named in the result.
  expect(result.session_id).toMatch(/^mcp-[0-9a-f]{12}$/);
  const end = messages.filter((message) => message.startsWith('✎✔'));
  expect(end).toEqual([expect.stringMatching(/^✎✔ citations verified/)]);
  // What was streamed is the record, or the end says it is not (a best-effort channel: the result is the record).
  const lastDiscard = messages.map((message) => message.startsWith('✎⌫')).lastIndexOf(true);
  const streamed = messages.slice(lastDiscard + 1).filter((message) => message.startsWith('✎ ')).map((message) => message.slice(2)).join('');
  if (end[0] === '✎✔ citations verified') expect(streamed).toBe(result.answer?.text);
  expect(result.answer?.citations[0]).toMatchObject({ source: 'Aurora X2 路由器.md' });
  expect(result.evidence[0]?.source).toBe('Aurora X2 路由器.md');
  expect(result.evidence.length).toBeLessThanOrEqual(8);
  for (const item of result.evidence) expect([...item.text].length).toBeLessThanOrEqual(600);
  expect(result.trace_uri).toBe(`ragtime://runs/${encodeURIComponent(result.run_id)}/trace`);

  const run = await call<RunResult>(plain, 'get_run', { run_id: result.run_id });
  expect(run).toMatchObject({ run_id: result.run_id, status: 'completed', route: 'answer' });

  const resource = await plain.readResource({ uri: result.trace_uri });
  const trace = JSON.parse((resource.contents[0] as { text: string }).text) as { route: string; retrieval_status: string };
  expect(trace).toMatchObject({ route: 'answer', retrieval_status: 'answerable' });
});

test('scope_select without elicitation: the prompt, options and run id come back; answer_clarification completes it', async () => {
  const asked = await call<RunResult>(plain, 'ask_knowledge', { question: SCOPED });
  expect(asked).toMatchObject({ status: 'awaiting_input', route: 'scope_select', answer: null, elicited_answers: 0 });
  // Another call without a session: another conversation (issue 33 §2; before, every such call joined "mcp").
  expect(asked.session_id).toMatch(/^mcp-[0-9a-f]{12}$/);
  const options = asked.clarification?.options ?? [];
  expect(options).toContain('Nimbus C1 摄像头用户手册');
  expect(asked.clarification?.how_to_answer).toContain(asked.run_id);

  const waiting = await call<RunResult>(plain, 'get_run', { run_id: asked.run_id });
  expect(waiting).toMatchObject({ status: 'awaiting_input', clarification: { options } });

  // An option's number picks that option (RagClient.answer).
  const answered = await call<RunResult>(plain, 'answer_clarification', { run_id: asked.run_id, answer: String(options.indexOf('Nimbus C1 摄像头用户手册') + 1) });
  expect(answered).toMatchObject({ run_id: asked.run_id, status: 'completed', route: 'answer', clarification: null });
  expect(answered.evidence[0]?.source).toBe('Nimbus C1 摄像头.md');
});

test('the MCP server restarted between the question and the answer: the durable run resumes', async () => {
  const first = await connect();
  const asked = await call<RunResult>(first.client, 'ask_knowledge', { question: SCOPED, session: `mcp-restart-${RUN}` });
  expect(asked.status).toBe('awaiting_input');
  // The client closes stdin and the `ragtime mcp` process exits; the run waits in Temporal meanwhile.
  await first.client.close();
  const second = await connect();
  const answered = await call<RunResult>(second.client, 'answer_clarification', { run_id: asked.run_id, answer: 'Aurora X2 路由器用户手册' });
  expect(answered).toMatchObject({ run_id: asked.run_id, status: 'completed', route: 'answer' });
  expect(answered.answer?.citations[0]?.source).toBe('Aurora X2 路由器.md');
});

test('scope_select with form elicitation: the person picks from the enum and the same call returns the answer', async () => {
  const asked: ElicitRequest[] = [];
  const { client } = await connect((request) => {
    asked.push(request);
    return { answer: 'Nimbus C1 摄像头用户手册' };
  });
  const result = await call<RunResult>(client, 'ask_knowledge', { question: SCOPED, session: `mcp-elicit-${RUN}` });
  expect(result).toMatchObject({ status: 'completed', route: 'answer', elicited_answers: 1, clarification: null });
  expect(result.evidence[0]?.source).toBe('Nimbus C1 摄像头.md');
  expect(asked).toHaveLength(1);
  const schema = (asked[0]?.params as unknown as { requestedSchema: { properties: { answer: { enum: string[] } } } }).requestedSchema;
  expect(schema.properties.answer.enum).toContain('Nimbus C1 摄像头用户手册');
});

test('a declined elicitation leaves the run waiting and returns the question (the fallback)', async () => {
  const { client } = await connect(() => null);
  const result = await call<RunResult>(client, 'ask_knowledge', { question: SCOPED });
  expect(result).toMatchObject({ status: 'awaiting_input', route: 'scope_select', elicited_answers: 0 });
  expect(result.clarification?.options).toContain('Nimbus C1 摄像头用户手册');
});

test('the ragtime://kb/{name} resource: the knowledge base’s stats', async () => {
  const resource = await plain.readResource({ uri: `ragtime://kb/${COLLECTION}` });
  const stats = JSON.parse((resource.contents[0] as { text: string }).text) as { kb: string; documents: number; chunks: { l3: number } };
  // samples/knowledge holds four documents (the ingestion in beforeAll reports files: 4).
  expect(stats).toMatchObject({ kb: COLLECTION, documents: 4 });
  expect(stats.chunks.l3).toBeGreaterThanOrEqual(4);
});

test('bad arguments are refused with the schema’s message, and nothing runs', async () => {
  const blank = (await plain.callTool({ name: 'ask_knowledge', arguments: { question: '   ' } })) as ToolReply;
  expect(blank.isError).toBe(true);
  expect(blank.content[0]?.text).toContain('question is empty after trimming');
  const badKb = (await plain.callTool({ name: 'ask_knowledge', arguments: { question: ANSWERED, kb: 'no-such kb' } })) as ToolReply;
  expect(badKb.isError).toBe(true);
  expect(badKb.content[0]?.text).toContain('knowledge base name may hold letters, digits and _ only');
  const unknownRun = (await plain.callTool({ name: 'get_run', arguments: { run_id: `rag-nobody-${RUN}` } })) as ToolReply;
  expect(unknownRun.isError).toBe(true);
  expect(unknownRun.content[0]?.text).toMatch(/^UNKNOWN_RUN: /);
});

test('search_knowledge: bounded evidence with sources and a relevance level, nothing of the trace', async () => {
  const result = await call<SearchResult>(plain, 'search_knowledge', { query: 'Aurora X2 保修期', top_k: 3 });
  expect(result.kb).toBe(COLLECTION);
  expect(result.evidence.length).toBeGreaterThan(0);
  expect(result.evidence.length).toBeLessThanOrEqual(3);
  expect(result.evidence.map((item) => item.source)).toContain('Aurora X2 路由器.md');
  // The worker's grader (here the offline policy) judged the evidence: not "unranked", which means nobody did.
  expect(['medium', 'high']).toContain(result.relevance_level);
  expect(Object.keys(result).sort()).toEqual(['evidence', 'kb', 'relevance_level', 'retrieval_mode']);
  // A question the knowledge base holds nothing on: evidence comes back (hybrid search always finds something), and
  // the grader says it is not relevant.
  const offTopic = await call<SearchResult>(plain, 'search_knowledge', { query: '火星探测器的发射日期是哪一天？', top_k: 3 });
  expect(offTopic.evidence.length).toBeGreaterThan(0);
  expect(['none', 'low']).toContain(offTopic.relevance_level);
  // stdout carried the protocol only: the stores' start-up lines, if any, went to stderr.
  expect(plainStderr()).not.toMatch(/SyntaxError|Unexpected token/);
});

/** The session's audit once `ready` holds (the worker and the MCP server write their rows as calls end). */
function auditWhen(session: string, what: string, ready: (trace: SessionTrace) => boolean): Promise<SessionTrace> {
  return pollUntil(what, async () => {
    const trace = await audit.sessionTrace(session);
    return ready(trace) ? trace : undefined;
  }, { timeoutMs: 15_000, intervalMs: 100 });
}

test('every tool call leaves an audit row (tool name, run ids, counts, scores; no raw text by default)', async () => {
  const session = `mcp-audit-${RUN}`;
  const asked = await call<RunResult>(plain, 'ask_knowledge', { question: ANSWERED, session });
  await call<RunResult>(plain, 'get_run', { run_id: asked.run_id });
  await call<SearchResult>(plain, 'search_knowledge', { query: 'Aurora X2 保修期', top_k: 2 });
  const refused = (await plain.callTool({ name: 'answer_clarification', arguments: { run_id: asked.run_id, answer: '丹瑾' } })) as ToolReply;
  expect(refused.isError).toBe(true);

  const trace = await auditWhen(session, 'three tool calls in the audit', (read) => (read.agentToolCalls ?? []).length >= 3);
  const calls = trace.agentToolCalls ?? [];
  expect(calls.map((row) => [row.toolName, row.workflowId, row.success, row.errorCode])).toEqual([
    ['ask_knowledge', asked.run_id, true, null],
    ['get_run', asked.run_id, true, null],
    // The run had completed: the answer was refused with the closed code, and the refusal is recorded too.
    ['answer_clarification', asked.run_id, false, 'NOT_AWAITING_INPUT'],
  ]);
  const [ask] = calls;
  expect(ask).toMatchObject({ runId: trace.runs[0]?.runId, evidenceCount: asked.evidence.length, candidateCount: asked.evidence_total, content: null });
  expect(ask?.details).toMatchObject({ audit_schema: 'mcp_tool_v1', transport: 'stdio', run_status: 'completed', route: 'answer', kb: COLLECTION, cancelled: false });
  expect(ask?.details.sources).toContain('Aurora X2 路由器.md');
  expect(typeof ask?.details.top_score).toBe('number');
  expect(ask?.outputPreview).toMatch(/^tool=ask_knowledge status=completed route=answer evidence=\d+\/\d+/);
  // The run's own rows are still the workflow's (rag_lookup_v1), beside the agent's call.
  expect(trace.toolInvocations.map((row) => row.step)).toEqual(['initial']);
  expect(JSON.stringify(calls)).not.toContain('保修期是多久');

  // search_knowledge names no run: its row is in the server's session (`ragtime mcp --session`, default "mcp").
  const searches = await auditWhen('mcp', 'the search in the audit', (read) => (read.agentToolCalls ?? []).some((row) => row.toolName === 'search_knowledge'));
  const search = searches.agentToolCalls?.filter((row) => row.toolName === 'search_knowledge').at(-1);
  expect(search).toMatchObject({ workflowId: '', success: true, evidenceCount: 2, details: { kb: COLLECTION, run_status: null } });
  expect(search?.relevanceLevel).toEqual(expect.any(String));
});

/** A client whose person never answers: a call that asks stays open on the elicitation; `elicited` settles when asked. */
async function connectUnanswered(): Promise<{ client: Client; elicited: Promise<void> }> {
  let asked: () => void = () => undefined;
  const elicited = new Promise<void>((resolve) => (asked = resolve));
  const { client } = await connect(() => {
    asked();
    return new Promise(() => undefined);
  });
  return { client, elicited };
}

test('a cancelled tool call cancels its run: the workflow ends CANCELLED and the audit says so', async () => {
  const session = `mcp-cancel-${RUN}`;
  const { client, elicited } = await connectUnanswered();
  const controller = new AbortController();
  const pending = client.callTool({ name: 'ask_knowledge', arguments: { question: SCOPED, session } }, undefined, { signal: controller.signal });
  await elicited;
  controller.abort('the person closed the chat');
  await expect(pending).rejects.toThrow();

  const trace = await auditWhen(session, 'the cancelled event and the cancelled call', (read) =>
    read.events.some((event) => event.eventType === 'cancelled') && (read.agentToolCalls ?? []).length === 1);
  const [row] = trace.agentToolCalls ?? [];
  expect(row).toMatchObject({ toolName: 'ask_knowledge', success: false, errorCode: 'CANCELLED', details: { cancelled: true } });
  expect(trace.runs).toMatchObject([{ workflowId: row?.workflowId, status: 'cancelled', route: 'scope_select' }]);
  expect(trace.events.map((event) => event.eventType)).toEqual(['run_started', 'hitl_requested', 'cancelled']);

  temporalConnection ??= await connectTemporal({ address: services.temporalAddress });
  const temporal = new TemporalClient({ connection: temporalConnection });
  expect(await closedStatus(temporal.workflow.getHandle(row?.workflowId ?? ''))).toBe('CANCELLED');
});

test('a client that disconnects mid-call does not cancel the run: it stays durable for get_run', async () => {
  const session = `mcp-drop-${RUN}`;
  const { client, elicited } = await connectUnanswered();
  const pending = client.callTool({ name: 'ask_knowledge', arguments: { question: SCOPED, session } }).catch((error: unknown) => error);
  await elicited;
  await client.close();
  await pending;
  const trace = await auditWhen(session, 'the dropped call', (read) => (read.agentToolCalls ?? []).length === 1 && read.runs.length === 1);
  expect(trace.runs[0]?.status).toBe('awaiting_input');
  expect(trace.agentToolCalls?.[0]?.details.cancelled).toBe(false);
  const run = await call<RunResult>(plain, 'get_run', { run_id: trace.runs[0]?.workflowId ?? '' });
  expect(run).toMatchObject({ status: 'awaiting_input', route: 'scope_select' });
});

describe('ragtime serve: /mcp over Streamable HTTP, on the same worker and knowledge base', () => {
  const TOKEN = `e2e-mcp-token-${RUN}`;
  let serve: ChildProcess | null = null;
  let endpoint: URL;

  beforeAll(async () => {
    serve = spawn(process.execPath, [RAGTIME_BIN, 'serve', '--port', '0'], { cwd: REPO_ROOT, env: { ...env, RAGTIME_API_TOKENS: `e2e:${hashToken(TOKEN)}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const child = serve;
    endpoint = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`ragtime serve did not start:\n${output}`)), 30_000);
      const collect = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const match = /^ragtime HTTP API: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(new URL('/mcp', match[1]));
        }
      };
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      child.once('exit', (code) => reject(new Error(`ragtime serve exited with ${code}:\n${output}`)));
    });
  }, 60_000);
  afterAll(async () => {
    if (!serve || serve.exitCode !== null) return;
    const exited = new Promise((resolve) => serve?.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  });

  async function connectHttp(): Promise<Client> {
    const client = new Client({ name: 'ragtime-e2e-http', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    return client;
  }

  test('search_knowledge is offered over HTTP and searches the tenant’s knowledge base with the stores `ragtime search` uses', async () => {
    const client = await connectHttp();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['answer_clarification', 'ask_knowledge', 'cancel_run', 'get_run', 'search_knowledge']);
    // The tenant has no knowledge bases of its own: its default is the server's (MILVUS_COLLECTION).
    const result = await call<SearchResult>(client, 'search_knowledge', { query: 'Aurora X2 保修期', top_k: 3 });
    expect(result.kb).toBe(COLLECTION);
    expect(result.evidence.map((item) => item.source)).toContain('Aurora X2 路由器.md');
    expect(['medium', 'high']).toContain(result.relevance_level);
    const refused = (await client.callTool({ name: 'search_knowledge', arguments: { query: 'x', kb: 'someone_elses_kb' } })) as ToolReply;
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/^NOT_FOUND: no knowledge base "someone_elses_kb"/);
  });

  test('ask_knowledge over HTTP answers from the same worker; the call is audited in the run’s session', async () => {
    const client = await connectHttp();
    const session = `mcp-http-${RUN}`;
    const result = await call<RunResult>(client, 'ask_knowledge', { question: ANSWERED, session });
    expect(result).toMatchObject({ status: 'completed', route: 'answer' });
    expect(result.answer?.citations[0]).toMatchObject({ source: 'Aurora X2 路由器.md' });
    const trace = await auditWhen(session, 'the HTTP call in the audit', (read) => (read.agentToolCalls ?? []).length === 1);
    expect(trace.agentToolCalls?.[0]).toMatchObject({ toolName: 'ask_knowledge', workflowId: result.run_id, success: true, details: { transport: 'http' } });
  });
});
