/**
 * `ragtime tenant purge` on the Temporal cluster of scripts/cluster.sh (issue 45 §2), with ragtime's stores on
 * PostgreSQL (DATABASE_URL): two tenants of this run, each with a knowledge base of its own (ingested by the worker:
 * Milvus collection, parents, records), an answered run and a run waiting for a person, asked by `ragtime ask` with
 * RAGTIME_TENANT (so the sessions are claimed and the turns kept under the tenant). The purge refuses while the
 * waiting run is in flight, then with --cancel-runs erases: nothing of the tenant is left in any table of the
 * database (but the purged mark), in Milvus, or in the cluster's histories and visibility, and `ragtime serve` refuses
 * its token; the other tenant keeps its rows, collection, runs (the waiting one still waiting) and token.
 *
 * Expected routes: docs/offline-policy.md on samples/knowledge (the Aurora X2's warranty is answered; "这款产品" with no
 * earlier turn is asked back).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import type { RagOutcome } from '../../core/schemas/run-io';
import { hashToken } from '../../server/http/token-auth';
import { runRagtime } from '../support/cli-run';
import { newMilvusClient } from '../support/milvus';
import { startServeProcess } from '../support/serve-process';
import { assertReachable, services } from '../support/services';
import { rowsHolding, within } from '../support/sql-rows';
import { serviceEnvironment, startWorkerProcess, stopWorkerProcess, tail, type WorkerProcess } from '../support/worker-process';
import { CLUSTER_ADDRESS, CLUSTER_NAMESPACE } from './cluster';

const RUN = randomUUID().slice(0, 8);
const tenants = { gone: `acme-${RUN}`, kept: `globex-${RUN}` };
const tokens = { gone: `cluster-gone-${RUN}-${randomUUID()}`, kept: `cluster-kept-${RUN}-${randomUUID()}` };
const kbs = { gone: `cluster_purge_a_${RUN}`, kept: `cluster_purge_g_${RUN}`, default: `cluster_purge_d_${RUN}` };
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-cluster-purge-'));
const env: NodeJS.ProcessEnv = {
  ...serviceEnvironment({ collection: kbs.default, dataDir }),
  TEMPORAL_ADDRESS: CLUSTER_ADDRESS,
  TEMPORAL_NAMESPACE: CLUSTER_NAMESPACE,
  TEMPORAL_TASK_QUEUE: `cluster-purge-${RUN}`,
  TEMPORAL_UI_URL: '',
  MODEL_PROVIDER: 'offline',
  DATABASE_URL: services.testDatabaseUrl,
  RAGTIME_API_TOKENS: `${tenants.gone}:${hashToken(tokens.gone)}:${kbs.gone},${tenants.kept}:${hashToken(tokens.kept)}:${kbs.kept}`,
};
const AURORA = path.join('samples', 'knowledge', 'Aurora X2 路由器.md');

let worker: WorkerProcess;
const runs: { gone: string[]; kept: string[] } = { gone: [], kept: [] };
const sessions = { goneAnswered: `c-gone-a-${RUN}`, goneWaiting: `c-gone-w-${RUN}`, keptAnswered: `c-kept-a-${RUN}`, keptWaiting: `c-kept-w-${RUN}` };

async function ragtime(args: string[], extra: NodeJS.ProcessEnv = {}, timeoutMs = 120_000) {
  return runRagtime(args, { ...env, ...extra }, timeoutMs);
}

async function ragtimeJson<T>(args: string[], extra: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<{ code: number | null; json: T }> {
  const run = await ragtime([...args, '--json'], extra, timeoutMs);
  try {
    return { code: run.code, json: JSON.parse(run.stdout) as T };
  } catch {
    throw new Error(`ragtime ${args.join(' ')} printed no JSON (exit ${run.code}):\n${tail(run.stdout)}\n${tail(run.stderr)}\nthe worker:\n${tail(worker.output())}`);
  }
}

const collections = async () => {
  const milvus = newMilvusClient();
  try {
    const names = new Set((await milvus.listCollections()).data.map((collection) => collection.name));
    return Object.values(kbs).filter((kb) => names.has(kb)).sort();
  } finally {
    await milvus.closeConnection();
  }
};

beforeAll(async () => {
  await assertReachable('the Temporal cluster (scripts/cluster.sh up)', CLUSTER_ADDRESS);
  await assertReachable('Milvus', services.milvusAddress);
  await assertReachable('embeddings server', services.embeddingBaseUrl);
  await assertReachable('PostgreSQL', new URL(services.testDatabaseUrl).host);
  worker = await startWorkerProcess(env);
  for (const [tenant, kb] of [[tenants.gone, kbs.gone], [tenants.kept, kbs.kept]] as const) {
    expect((await ragtime(['kb', 'create', kb])).code).toBe(0);
    const ingested = await ragtimeJson<{ totals: Record<string, number> }>(['ingest', AURORA, '--kb', kb], {}, 180_000);
    expect([ingested.code, ingested.json.totals]).toEqual([0, expect.objectContaining({ ingested: 1, failed: 0 })]);
    const asTenant = { RAGTIME_TENANT: tenant };
    const own = tenant === tenants.gone ? 'gone' : 'kept';
    const answered = await ragtimeJson<RagOutcome>(['ask', 'Aurora X2 路由器的保修期是多久？', '--kb', kb, '--session', sessions[`${own}Answered`]], asTenant);
    const waiting = await ragtimeJson<RagOutcome>(['ask', '这款产品的价格是多少？', '--kb', kb, '--session', sessions[`${own}Waiting`], '--no-interactive'], asTenant);
    expect([answered.json.status, waiting.json.status]).toEqual(['completed', 'awaiting_input']);
    runs[own].push(answered.json.workflowId, waiting.json.workflowId);
  }
}, 600_000);

afterAll(async () => {
  if (worker) await stopWorkerProcess(worker.child);
  const connection = await connectTemporal({ address: CLUSTER_ADDRESS }).catch(() => null);
  if (connection && runs.kept[1]) await new Client({ connection, namespace: CLUSTER_NAMESPACE }).workflow.getHandle(runs.kept[1]).terminate('test over').catch(() => undefined);
  await connection?.close();
  for (const kb of Object.values(kbs)) await ragtime(['kb', 'drop', kb, '--yes']).catch(() => undefined);
  await ragtime(['tenant', 'readmit', tenants.gone]).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

describe('tenant purge on the cluster, with the stores on PostgreSQL (issue 45 §2)', () => {
  test('refused while a run is in flight; with --cancel-runs nothing of the tenant is left in the database, Milvus, the cluster or the API; the other tenant keeps everything', async () => {
    const place = { databaseUrl: services.testDatabaseUrl, sqliteFiles: [] };
    const goneNeedles = [tenants.gone, kbs.gone, ...Object.values(sessions).filter((s) => s.includes('gone')), ...runs.gone];
    const keptNeedles = [tenants.kept, kbs.kept, ...Object.values(sessions).filter((s) => s.includes('kept')), ...runs.kept];
    expect(Object.keys(await rowsHolding(place, goneNeedles)).sort()).toEqual(expect.arrayContaining(['diagnosis_event', 'documents', 'parent_chunks', 'session_owner', 'session_turn', 'tool_invocation']));
    const keptBefore = await rowsHolding(place, keptNeedles);

    const dry = await ragtimeJson<{ sessions: string[]; temporalRuns: number; runsInFlight: string[]; knowledgeBases: Array<{ kb: string; documents: number }> }>(['tenant', 'purge', tenants.gone, '--dry-run']);
    expect(dry.json).toMatchObject({ sessions: [sessions.goneAnswered, sessions.goneWaiting].sort(), temporalRuns: 2, runsInFlight: [runs.gone[1]], knowledgeBases: [{ kb: kbs.gone, documents: 1 }] });
    const refused = await ragtime(['tenant', 'purge', tenants.gone, '--yes']);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('has 1 run in flight')]);

    const purged = await ragtimeJson<{ cancelledRuns: string[]; temporalRuns: number; temporalPending: string[]; sessionTurns: number; sessionOwners: number }>(['tenant', 'purge', tenants.gone, '--yes', '--cancel-runs'], {}, 240_000);
    expect([purged.code, purged.json]).toEqual([0, expect.objectContaining({ cancelledRuns: [runs.gone[1]], temporalRuns: 2, temporalPending: [], sessionTurns: 1, sessionOwners: 2 })]);

    expect(await rowsHolding(place, goneNeedles)).toEqual({ purged_tenant: 1 });
    expect(await rowsHolding(place, keptNeedles)).toEqual(keptBefore);
    // The default knowledge base (the worker creates it at start) is every tenant's: kept.
    expect(await collections()).toEqual([kbs.default, kbs.kept]);

    const connection = await connectTemporal({ address: CLUSTER_ADDRESS });
    try {
      const client = new Client({ connection, namespace: CLUSTER_NAMESPACE });
      for (const workflowId of runs.gone) {
        const found = await client.workflow.getHandle(workflowId).describe().then(() => 'found', (error: Error) => error.name);
        expect([workflowId, found]).toEqual([workflowId, 'WorkflowNotFoundError']);
      }
      // Visibility (SQL on PostgreSQL) forgets them too, asynchronously.
      const listed = await within(30_000, async () => {
        const ids: string[] = [];
        for await (const run of client.workflow.list({ query: `RagSessionId = "${sessions.goneAnswered}" OR RagSessionId = "${sessions.goneWaiting}"` })) ids.push(run.workflowId);
        return ids;
      }, (ids) => ids.length === 0);
      expect(listed).toEqual([]);
      const kept = await Promise.all(runs.kept.map(async (workflowId) => (await client.workflow.getHandle(workflowId).describe()).status.name));
      expect(kept).toEqual(['COMPLETED', 'RUNNING']);
    } finally {
      await connection.close();
    }

    const serve = await startServeProcess(env);
    try {
      const status = async (token: string, sessionId: string) => (await fetch(`${serve.url}/api/sessions/${sessionId}/turns`, { headers: { authorization: `Bearer ${token}` } })).status;
      expect([await status(tokens.gone, sessions.goneAnswered), await status(tokens.kept, sessions.keptAnswered)]).toEqual([401, 200]);
    } finally {
      serve.child.kill('SIGTERM');
    }
  }, 420_000);
});
