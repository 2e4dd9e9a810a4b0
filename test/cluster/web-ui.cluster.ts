/**
 * The Temporal Web UI beside the cluster (issue 45 §1; scripts/cluster/web-ui.sh): `scripts/cluster.sh up` starts
 * temporal-ui-server on the cluster's frontend, configured with ragtime's codec server, so that a worker encrypting
 * with the cluster's keyring (RAGTIME_CODEC_KEY_FILE) leaves histories that read decoded in the browser. Chromium
 * (Debian's, through playwright-core) opens the run link that `ragtime ask` prints, follows the run to a sub-question's
 * child workflow and reads an activity's input, decoded; the history itself holds only ciphertext.
 *
 * Expected routes: docs/offline-policy.md on samples/knowledge (the comparison is planned into two sub-questions).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import type { Page } from 'playwright-core';
import { connectTemporal } from '../../client/temporal-connection';
import { runRagtime } from '../support/cli-run';
import { launchConsoleBrowser, type ConsoleBrowser } from '../support/console-browser';
import { dropTestCollection } from '../support/milvus';
import { assertReachable, services } from '../support/services';
import { ingestSampleKnowledge, serviceEnvironment, startWorkerProcess, stopWorkerProcess, tail, type WorkerProcess } from '../support/worker-process';
import { CLUSTER_ADDRESS, CLUSTER_CODEC_KEY_FILE, CLUSTER_CODEC_URL, CLUSTER_NAMESPACE, CLUSTER_UI_URL } from './cluster';

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `cluster_ui_${RUN}`;
const QUESTION = '比较 Aurora X2 与 Nimbus C1 的保修政策';
const SUB_QUESTION = 'Aurora X2的保修政策';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-cluster-ui-'));
const env: NodeJS.ProcessEnv = {
  ...serviceEnvironment({ collection: COLLECTION, dataDir }),
  TEMPORAL_ADDRESS: CLUSTER_ADDRESS,
  TEMPORAL_NAMESPACE: CLUSTER_NAMESPACE,
  TEMPORAL_TASK_QUEUE: `cluster-ui-${RUN}`,
  TEMPORAL_UI_URL: CLUSTER_UI_URL,
  MODEL_PROVIDER: 'offline',
  // The cluster's keyring: payloads are encrypted in the history, and its codec server can open them.
  RAGTIME_CODEC_KEY_FILE: CLUSTER_CODEC_KEY_FILE,
  RAGTIME_CODEC_KEYS: undefined,
};

let worker: WorkerProcess;
let browser: ConsoleBrowser;

beforeAll(async () => {
  await assertReachable('the Temporal cluster (scripts/cluster.sh up)', CLUSTER_ADDRESS);
  await assertReachable('the cluster\'s Web UI (scripts/cluster.sh up)', CLUSTER_UI_URL);
  await assertReachable('the cluster\'s codec server (scripts/cluster.sh up)', CLUSTER_CODEC_URL);
  await assertReachable('Milvus', services.milvusAddress);
  await assertReachable('embeddings server', services.embeddingBaseUrl);
  worker = await startWorkerProcess(env);
  const ingested = await ingestSampleKnowledge(env);
  if (ingested.status !== 0) throw new Error(`ragtime ingest failed (${ingested.status}):\n${tail(ingested.output)}`);
  browser = await launchConsoleBrowser();
}, 180_000);

afterAll(async () => {
  if (browser) await browser.close();
  if (worker) await stopWorkerProcess(worker.child);
  await dropTestCollection(COLLECTION);
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** The codec endpoint the UI was given (its settings, as the browser reads them): http://127.0.0.1:<port>/<token>. */
async function uiCodecEndpoint(): Promise<string> {
  const settings = (await (await fetch(`${CLUSTER_UI_URL}/api/v1/settings`)).json()) as { Codec: { Endpoint: string; PassAccessToken: boolean; IncludeCredentials: boolean } };
  return settings.Codec.Endpoint;
}

/** The page's calls to the codec server, by status (the token in their path is never printed). */
function codecCalls(page: Page): Map<number, number> {
  const statuses = new Map<number, number>();
  page.on('response', (response) => {
    if (response.url().startsWith(`${CLUSTER_CODEC_URL}/`)) statuses.set(response.status(), (statuses.get(response.status()) ?? 0) + 1);
  });
  return statuses;
}

describe('the Temporal Web UI on the cluster, with ragtime\'s codec server', () => {
  test('the UI is given the cluster\'s codec server; it answers the UI origin\'s preflight and refuses another origin or a missing token', async () => {
    const endpoint = await uiCodecEndpoint();
    expect(endpoint).toMatch(new RegExp(`^${CLUSTER_CODEC_URL.replace(/[.]/g, '\\.')}/[0-9a-f]{64}$`));
    const preflight = await fetch(`${endpoint}/decode`, {
      method: 'OPTIONS',
      headers: { origin: CLUSTER_UI_URL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
    });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin'), preflight.headers.get('access-control-allow-headers')]).toEqual([
      204,
      CLUSTER_UI_URL,
      expect.stringContaining('x-namespace'),
    ]);
    const elsewhere = await fetch(`${endpoint}/decode`, { method: 'OPTIONS', headers: { origin: 'http://127.0.0.1:9', 'access-control-request-method': 'POST' } });
    expect(elsewhere.status).toBe(403);
    const noToken = await fetch(`${CLUSTER_CODEC_URL}/decode`, { method: 'POST', headers: { origin: CLUSTER_UI_URL, 'content-type': 'application/json' }, body: '{"payloads":[]}' });
    expect(noToken.status).toBe(401);
  });

  test('Chromium opens the run link `ragtime ask` prints, follows the run to a sub-question\'s child workflow and reads its retrieve activity\'s input decoded; the history holds ciphertext', async () => {
    const asked = await runRagtime(['ask', QUESTION, '--session', `cluster-ui-${RUN}`], env, 90_000);
    expect(asked.code).toBe(0);
    const link = new RegExp(`^ {2}run (rag-\\S+) {2}(${CLUSTER_UI_URL.replace(/[.]/g, '\\.')}/namespaces/default/workflows/\\S+)$`, 'm').exec(asked.stdout);
    if (link === null) throw new Error(`ragtime ask printed no link to the cluster's UI:\n${tail(asked.stdout)}\n${tail(asked.stderr)}`);
    const [, workflowId, url] = link as unknown as [string, string, string];
    const childId = `${workflowId}/sub-1`;

    // What the cluster stores: the child's retrieve input, encrypted by the worker's codec.
    const connection = await connectTemporal({ address: CLUSTER_ADDRESS });
    try {
      const history = await new Client({ connection, namespace: CLUSTER_NAMESPACE }).workflow.getHandle(childId).fetchHistory();
      const scheduled = history.events?.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'retrieve');
      const payload = scheduled?.activityTaskScheduledEventAttributes?.input?.payloads?.[0];
      expect(Buffer.from(payload?.metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
      expect(Buffer.from(payload?.data ?? []).toString()).not.toContain(SUB_QUESTION);
    } finally {
      await connection.close();
    }

    const page = await browser.context.newPage();
    const calls = codecCalls(page);
    try {
      await page.goto(url);
      // The run's own input, decoded: the question asked.
      await page.locator('main', { hasText: QUESTION }).waitFor({ timeout: 30_000 });
      await page.locator('a[href$="/relationships"]').click();
      await page.getByRole('link', { name: childId, exact: true }).click();
      await page.waitForURL((next) => next.pathname.includes(`/workflows/${encodeURIComponent(childId)}/`));
      await page.locator('a', { hasText: 'Event History' }).first().click();
      const scheduled = page.locator('tr[data-testid="event-summary-row"]', { hasText: 'retrieve' }).first();
      await scheduled.getByRole('button', { name: 'Expand details' }).click();
      const details = page.locator('tr[data-testid="event-summary-row-expanded"]', { hasText: 'Activity Task Scheduled' }).filter({ hasText: 'retrieve' });
      await details.filter({ hasText: `"query": "${SUB_QUESTION}"` }).waitFor({ timeout: 30_000 });
      const text = await details.innerText();
      expect(text).toContain('"purpose": "sub_question"');
      expect(text).not.toContain('binary/encrypted');
      // Every payload the page showed came through ragtime's codec server, and it decoded each one.
      expect([...calls.keys()]).toEqual([200]);
      expect(calls.get(200)).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  }, 240_000);
});
