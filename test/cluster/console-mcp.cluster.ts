/**
 * The console's server and the MCP server on the Temporal cluster of scripts/cluster.sh (issue 27 §2), unchanged but
 * for TEMPORAL_ADDRESS: `ragtime serve` answers POST /api/runs, streams the run's progress (SSE) and GET
 * /api/runs/{id}, and serves the console's index.html; `ragtime mcp` answers ask_knowledge. The CLI is run with
 * TEMPORAL_UI_URL empty (web-ui.cluster.ts sets it to the cluster's own UI): it prints no UI link instead of one to the
 * dev server's UI (8233), which does not know the cluster's runs (docs/DEPLOYMENT.md).
 *
 * Expected routes: docs/offline-policy.md on samples/knowledge (the Aurora X2's warranty is answered).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RagOutcome } from '../../core/schemas/run-io';
import type { RunResult } from '../../server/mcp/tool-schemas';
import { hashToken } from '../../server/http/token-auth';
import { runRagtime } from '../support/cli-run';
import { newMcpClient } from '../support/mcp-client';
import { dropTestCollection } from '../support/milvus';
import { startServeProcess, type ServeProcess } from '../support/serve-process';
import { REPO_ROOT, assertReachable, services } from '../support/services';
import { RAGTIME_BIN, ingestSampleKnowledge, serviceEnvironment, startWorkerProcess, stopWorkerProcess, tail, type WorkerProcess } from '../support/worker-process';
import { CLUSTER_ADDRESS, CLUSTER_NAMESPACE } from './cluster';

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `cluster_console_${RUN}`;
const TOKEN = `cluster-console-${RUN}-${randomUUID()}`;
const ANSWERED = 'Aurora X2 路由器的保修期是多久？';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-cluster-console-'));
const env: NodeJS.ProcessEnv = {
  ...serviceEnvironment({ collection: COLLECTION, dataDir }),
  TEMPORAL_ADDRESS: CLUSTER_ADDRESS,
  TEMPORAL_NAMESPACE: CLUSTER_NAMESPACE,
  TEMPORAL_TASK_QUEUE: `cluster-console-${RUN}`,
  // No run links: the default would be the dev server's UI (docs/DEPLOYMENT.md, "Run links").
  TEMPORAL_UI_URL: '',
  MODEL_PROVIDER: 'offline',
  RAGTIME_API_TOKENS: `acme:${hashToken(TOKEN)}`,
};
const auth = { authorization: `Bearer ${TOKEN}` };

let worker: WorkerProcess;
let serve: ServeProcess;

beforeAll(async () => {
  await assertReachable('the Temporal cluster (scripts/cluster.sh up)', CLUSTER_ADDRESS);
  await assertReachable('Milvus', services.milvusAddress);
  await assertReachable('embeddings server', services.embeddingBaseUrl);
  worker = await startWorkerProcess(env);
  const ingested = await ingestSampleKnowledge(env);
  if (ingested.status !== 0) throw new Error(`ragtime ingest failed (${ingested.status}):\n${tail(ingested.output)}`);
  serve = await startServeProcess(env);
}, 180_000);

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGTERM');
  if (worker) await stopWorkerProcess(worker.child);
  await dropTestCollection(COLLECTION);
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

type StreamEvent = { id?: string; event?: string; data: unknown };

/** The whole progress stream of a run: the server ends it after the `outcome` event. */
async function readProgress(workflowId: string): Promise<StreamEvent[]> {
  const response = await fetch(`${serve.url}/api/runs/${encodeURIComponent(workflowId)}/progress`, { headers: auth, signal: AbortSignal.timeout(60_000) });
  expect([response.status, response.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/event-stream')]);
  const events: StreamEvent[] = [];
  for (const block of (await response.text()).split('\n\n')) {
    const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(block)?.[1];
    const event = field('event');
    if (event) events.push({ id: field('id'), event, data: JSON.parse(field('data') ?? 'null') as unknown });
  }
  return events;
}

describe('the console and MCP on the Temporal cluster, unchanged but for TEMPORAL_ADDRESS', () => {
  test('ragtime serve says it talks to the cluster', () => {
    expect(serve.output()).toContain(`  Temporal: ${CLUSTER_ADDRESS}, namespace ${CLUSTER_NAMESPACE}, task queue cluster-console-${RUN}`);
  });

  test('POST /api/runs, its progress stream (steps, then the outcome) and GET /api/runs/{id}', async () => {
    const response = await fetch(`${serve.url}/api/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ question: ANSWERED, sessionId: `cluster-console-${RUN}`, wait: false }),
    });
    expect(response.status).toBe(202);
    const { workflowId } = (await response.json()) as { workflowId: string };

    const events = await readProgress(workflowId);
    const steps = events.filter((event) => event.event === 'step');
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.map((event) => Number(event.id))).toEqual(steps.map((_, index) => index));
    expect(events.at(-1)).toMatchObject({ event: 'outcome', data: { workflowId, status: 'completed', route: 'answer' } });

    const run = await fetch(`${serve.url}/api/runs/${encodeURIComponent(workflowId)}`, { headers: auth });
    expect(run.status).toBe(200);
    // RunView: the outcome as it stands and the normalized trace.
    const view = (await run.json()) as { outcome: RagOutcome; trace: { route: string } };
    expect(view.outcome).toMatchObject({ workflowId, status: 'completed', route: 'answer', degraded: null });
    expect(view.outcome.docs[0]?.filename).toBe('Aurora X2 路由器.md');
    expect(view.trace.route).toBe('answer');
  });

  test('the console: index.html is served', async () => {
    const index = await fetch(`${serve.url}/`);
    expect([index.status, index.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    expect(await index.text()).toMatch(/<script[^>]+src="\/assets\/[^"]+\.js"/);
  });

  test('ragtime mcp: ask_knowledge answers with a citation', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [RAGTIME_BIN, 'mcp'],
      cwd: REPO_ROOT,
      env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      stderr: 'pipe',
    });
    const client = newMcpClient('ragtime-cluster');
    await client.connect(transport);
    try {
      const reply = (await client.callTool({ name: 'ask_knowledge', arguments: { question: ANSWERED, session: `cluster-mcp-${RUN}` } })) as { isError?: boolean; structuredContent?: unknown };
      expect(reply.isError).toBeFalsy();
      const result = reply.structuredContent as RunResult;
      expect(result).toMatchObject({ status: 'completed', route: 'answer', clarification: null, error: null });
      expect(result.answer?.citations[0]).toMatchObject({ source: 'Aurora X2 路由器.md' });
    } finally {
      await client.close();
    }
  });

  test('ragtime ask with TEMPORAL_UI_URL empty prints the run without a link to the dev server\'s UI', async () => {
    const run = await runRagtime(['ask', ANSWERED, '--session', `cluster-link-${RUN}`], env, 60_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}run rag-\S+$/m);
    expect(run.stdout).not.toContain('http://127.0.0.1:8233');
  });
});
