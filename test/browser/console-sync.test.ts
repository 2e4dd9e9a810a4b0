/**
 * The console's Sources page (issue 46 §2) in a real browser (Debian's chromium, test/support/console-browser.ts)
 * against a real server on the dev server (test/support/http-harness.ts): a source of the tenant's knowledge base is
 * listed with its schedule and last pass's report, "Run now" starts a pass whose report the page then shows, and a
 * source of another tenant's knowledge base is not listed. The passes run on a worker of their own task queue with
 * the real sync and ingest activities over in-memory knowledge stores (test/support/ingest-doubles.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { KnowledgeStores } from '../../activities/knowledge/knowledge-stores';
import { addSyncSource, removeSyncSource } from '../../client/sync-schedule';
import { CONSOLE_DIST } from '../../server/http/console-assets';
import { launchConsoleBrowser, signedInPage, type ConsoleBrowser } from '../support/console-browser';
import { EMPTY_KNOWLEDGE_API, KBS, TOKENS, openHttpHarness, type HttpHarness } from '../support/http-harness';
import { ingestDoubles, MEMORY_KB } from '../support/ingest-doubles';
import { REPO_ROOT } from '../support/services';
import { newPasses, passOutcome } from '../support/sync-passes';
import { newTaskQueue, scriptedAdapters } from '../workflows/harness';

jest.setTimeout(120_000);

const ARTIFACTS = path.join(REPO_ROOT, '.data', 'artifacts', 'console');
let harness: HttpHarness;
let url: string;
let browser: ConsoleBrowser;
let worker: Worker;
let running: Promise<void>;
let tmp = '';
const problems: string[] = [];
const SOURCES = { mine: `console-mine-${Date.now()}`, theirs: `console-theirs-${Date.now()}` };

beforeAll(async () => {
  const build = spawnSync('bash', ['scripts/build-console.sh'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building the console failed:\n${build.stdout}\n${build.stderr}`);
  mkdirSync(ARTIFACTS, { recursive: true });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-console-sync-'));
  harness = await openHttpHarness();
  url = await harness.server({ consoleRoot: CONSOLE_DIST, knowledge: EMPTY_KNOWLEDGE_API }).listen({ host: '127.0.0.1', port: 0 });
  // The in-memory stores hold one knowledge base; the two tenants' names both open it (their document ids differ).
  const doubles = ingestDoubles();
  const knowledge: KnowledgeStores = { ...doubles.knowledge, open: async (kb) => ({ ...(await doubles.knowledge.open(undefined, { create: true })), kb: kb ?? MEMORY_KB }) };
  const taskQueue = newTaskQueue();
  const { models, retriever } = scriptedAdapters({ retrieve: () => { throw new Error('no retrieval in a sync pass'); } });
  worker = await Worker.create({
    connection: harness.env.nativeConnection,
    taskQueue,
    workflowBundle: harness.env.workflowBundle,
    dataConverter: harness.env.dataConverter,
    activities: createActivities({ models, retriever, ingest: { knowledge }, sync: { knowledge, filesDir: path.join(tmp, 'sync-files') } }),
  });
  running = worker.run();
  for (const [source, kb] of [[SOURCES.mine, KBS.acme], [SOURCES.theirs, KBS.globex]] as const) {
    mkdirSync(path.join(tmp, source));
    writeFileSync(path.join(tmp, source, 'guide.md'), '# 指南\n\n第一段。\n\n第二段。');
    writeFileSync(path.join(tmp, source, 'faq.txt'), '常见问题。');
    await addSyncSource(harness.env.client, taskQueue, { source, path: path.join(tmp, source), kb, every: '1h' });
    const [first] = await newPasses(harness.env.client, source, []);
    await passOutcome(harness.env.client, first!);
  }
  browser = await launchConsoleBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  for (const source of Object.values(SOURCES)) await removeSyncSource(harness.env.client, source).catch(() => undefined);
  worker?.shutdown();
  await running?.catch(() => undefined);
  await harness?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 30_000);

test('the Sources page lists the tenant\'s source with its last pass, and Run now shows the next pass\'s report', async () => {
  const page = await signedInPage(browser, url, TOKENS.acme, problems);
  await page.getByRole('link', { name: 'Sources' }).click();
  const row = page.locator(`li[data-source="${SOURCES.mine}"]`);
  await row.locator('.sync-counts').waitFor();
  expect(await row.locator('.sync-counts').textContent()).toMatch(/^added 2, changed 0, removed 0, renamed 0, unchanged 0, failed 0/);
  expect(await row.locator('p.muted').first().textContent()).toContain(`folder → ${KBS.acme} · every 3600s`);
  expect(await page.locator(`li[data-source="${SOURCES.theirs}"]`).count()).toBe(0);
  expect(await page.content()).not.toContain(tmp); // no path of the workers' machines

  writeFileSync(path.join(tmp, SOURCES.mine, 'guide.md'), '# 指南\n\n第一段。\n\n第二段，改过了。');
  await row.getByRole('button', { name: 'Run now' }).click();
  await row.locator('.sync-counts', { hasText: /changed 1, removed 0, renamed 0, unchanged 1/ }).waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'sources.png'), fullPage: true });
  await page.close();
});

test('no page broke the Content-Security-Policy or threw an uncaught error', () => {
  expect(problems).toEqual([]);
});
