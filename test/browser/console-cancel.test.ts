/**
 * The console's Cancel button (issue 43 §6) in a real browser (Debian's chromium, test/support/console-browser.ts)
 * against a real server and an in-process worker on the dev server (test/support/http-harness.ts), whose HOLD
 * questions are graded by a model call that holds until its activity is cancelled (test/support/held-models.ts).
 * Screenshots go to .data/artifacts/console/ (git-ignored). It runs in the shared tier: nothing here is timed (the
 * page's waits are up to 30 s), unlike console.test.ts' streamed answer.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { CONSOLE_DIST } from '../../server/http/console-assets';
import { closedStatus } from '../support/closed-status';
import { launchConsoleBrowser, signedInPage, type ConsoleBrowser } from '../support/console-browser';
import { HOLD, heldModels } from '../support/held-models';
import { EMPTY_KNOWLEDGE_API, TOKENS, openHttpHarness, simpleQuestion, type HttpHarness } from '../support/http-harness';
import { REPO_ROOT, pollUntil } from '../support/services';
import { sessionId } from '../workflows/harness';

jest.setTimeout(90_000);

const ARTIFACTS = path.join(REPO_ROOT, '.data', 'artifacts', 'console');
const { models, held } = heldModels();

let harness: HttpHarness;
let url: string;
let browser: ConsoleBrowser;
const problems: string[] = [];

beforeAll(async () => {
  const build = spawnSync('bash', ['scripts/build-console.sh'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building the console failed:\n${build.stdout}\n${build.stderr}`);
  mkdirSync(ARTIFACTS, { recursive: true });
  harness = await openHttpHarness({ models });
  url = await harness.server({ consoleRoot: CONSOLE_DIST, knowledge: EMPTY_KNOWLEDGE_API }).listen({ host: '127.0.0.1', port: 0 });
  browser = await launchConsoleBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await harness?.close();
}, 30_000);

async function startRun(question: string): Promise<string> {
  const response = await fetch(`${url}/api/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.acme}`, 'content-type': 'application/json' },
    body: JSON.stringify({ question, sessionId: sessionId(), wait: false }),
  });
  if (response.status !== 202) throw new Error(`POST /api/runs: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { workflowId: string }).workflowId;
}

const signedIn = () => signedInPage(browser, url, TOKENS.acme, problems);

test('a running run\'s page cancels it: the run and its model call end, and the page says cancelled', async () => {
  const workflowId = await startRun(`${HOLD}${sessionId()}是什么属性？`);
  await pollUntil('the held grade', async () => held.find((call) => call.workflowId === workflowId));
  const page = await signedIn();
  await page.goto(`${url}/#/run/${encodeURIComponent(workflowId)}`);
  await page.locator('.badge.status-running').first().waitFor();
  await page.getByRole('button', { name: 'Cancel run' }).click();

  await page.locator('.run-head .badge.status-cancelled').waitFor({ timeout: 30_000 });
  expect(await page.locator('.run-head .error').textContent()).toBe('CANCELLED: the run was cancelled before it finished; it takes no answers — ask again to start a new one');
  expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
  expect(await closedStatus(harness.env.client.workflow.getHandle(workflowId))).toBe('CANCELLED');
  // The held model call's activity is cancelled at its next heartbeat (every 2 s).
  await pollUntil('the held call aborted', async () => (held.find((call) => call.workflowId === workflowId)?.abortedAt ? true : undefined), { timeoutMs: 10_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'run-cancelled.png'), fullPage: true });
  await page.close();
});

test('a completed run has no Cancel button', async () => {
  const workflowId = await startRun(simpleQuestion('丹瑾'));
  await pollUntil('the run completed', async () => ((await harness.rag.getOutcome(workflowId)).status === 'completed' ? true : undefined));
  const page = await signedIn();
  await page.goto(`${url}/#/run/${encodeURIComponent(workflowId)}`);
  await page.locator('.run-head .badge.status-completed').waitFor();
  expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
  await page.close();
});

test('no page broke the Content-Security-Policy or threw an uncaught error', () => {
  expect(problems).toEqual([]);
});
