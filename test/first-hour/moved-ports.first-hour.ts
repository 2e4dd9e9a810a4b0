/**
 * The first hour of a new user (issue 33), as the acceptance test: a fresh clone of this working tree
 * (test/support/working-tree-copy.ts) with every service port moved runs `make demo`, and then a shell that exported
 * only those ports (as docs/demo.md suggests) runs the commands the docs show, with the results they show. This
 * checkout's services run meanwhile on the default ports (`make up`): whatever reaches them instead of the clone's
 * fails here (before issue 33: doctor checked Temporal and embeddings on the default ports and passed, and `search`,
 * `docs list`, MCP `search_knowledge` read the knowledge base `embeddings_collection`, which the demo never made).
 *
 * The clone starts its own services (Temporal, Milvus Lite, embeddings, the worker, the codec server and `ragtime
 * serve`) on the moved ports, in its own .data/, and `make down` stops them at the end. node_modules/ and .venv/ are
 * links to this checkout's (installing them takes minutes); console/dist/ is copied, so a rebuild stays in the clone.
 *
 * Steps run in order, each a test of its own, after `make demo`: add one as another `test(…)` below, using `ragtime`
 * (a command in the user's shell), `api` (the demo's `ragtime serve`) or `withMcp` (`ragtime mcp` over stdio).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { launchConsoleBrowser } from '../support/console-browser';
import { newMcpClient } from '../support/mcp-client';
import { REPO_ROOT } from '../support/services';
import { copyWorkingTree, run, shown, type Run } from '../support/working-tree-copy';

const work = mkdtempSync(path.join(os.tmpdir(), 'ragtime-first-hour-'));
const CLONE = path.join(work, 'ragtime');
const KB = 'ragtime_demo_kb';
const SAMPLES = ['Aurora X2 路由器.md', 'Nimbus C1 摄像头.md', 'Orbit CLI release notes.md', '星穹角色图鉴.md'];

const PORT_NAMES = ['TEMPORAL_PORT', 'TEMPORAL_UI_PORT', 'MILVUS_PORT', 'EMBEDDINGS_PORT', 'POSTGRES_PORT', 'CODEC_PORT', 'RAGTIME_API_PORT'] as const;
type Ports = Record<(typeof PORT_NAMES)[number], string>;
let ports: Ports;

/** Nothing listens on the port (a connection is refused). */
const closed = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

/** Seven free ports in a row below the ephemeral range (32768+), so an outgoing connection does not take one meanwhile. */
async function movedPorts(): Promise<Ports> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const base = 21_000 + Math.floor(Math.random() * 10_000);
    const candidates = PORT_NAMES.map((_, i) => base + i);
    if ((await Promise.all(candidates.map(closed))).every(Boolean)) return Object.fromEntries(PORT_NAMES.map((name, i) => [name, String(candidates[i])])) as Ports;
  }
  throw new Error('no seven free ports in a row between 21000 and 31000');
}

/**
 * A new login shell: PATH, HOME, the locale, and nothing of ragtime's (no address, no data dir, no knowledge base,
 * no npm variables of the jest process: `npx` must run the clone's `ragtime`, from its own cache, offline).
 */
function freshShell(extra: Record<string, string>): NodeJS.ProcessEnv {
  const kept = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'CI'];
  return {
    ...Object.fromEntries(kept.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]]))),
    npm_config_cache: path.join(work, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** The user's shell after `make demo`: only the moved ports exported (docs/demo.md). */
const userShell = () => freshShell({ ...ports });
const ragtime = (args: string[], env = userShell(), timeoutMs = 60_000): Promise<Run> => run('npx', ['ragtime', ...args], { cwd: CLONE, env, timeoutMs });

let demo: Run;
let demoSeconds = 0;
let tourSession = '';

/** The demo's `ragtime serve` (on the moved RAGTIME_API_PORT), with the demo tenant's token it printed. */
async function api(method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const token = readFileSync(path.join(CLONE, '.data', 'console', 'demo-token'), 'utf8').trim();
  const response = await fetch(`http://127.0.0.1:${ports.RAGTIME_API_PORT}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, json: await response.json() };
}

/** `ragtime mcp` over stdio, from the clone, in the user's shell (as an MCP client's config starts it: docs/MCP.md). */
async function withMcp<T>(use: (client: Client) => Promise<T>): Promise<T> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(CLONE, 'bin', 'ragtime.js'), 'mcp'],
    cwd: CLONE,
    env: Object.fromEntries(Object.entries(userShell()).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    stderr: 'pipe',
  });
  const client = newMcpClient('ragtime-first-hour');
  await client.connect(transport);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

function unlinkIfLink(file: string): void {
  try {
    if (lstatSync(file).isSymbolicLink()) unlinkSync(file);
  } catch {
    // not there
  }
}

/** Refuses to go on when `make demo`'s setup would install through the links into this checkout's node_modules/.venv. */
function assertInstalledHere(): void {
  const stamps = execFileSync(
    'bash',
    ['-c', 'sha() { sha256sum "$@" | sha256sum | cut -d" " -f1; }; echo "$(sha package-lock.json package.json) node-$(node --version)"; echo "$(sha requirements.txt) $(.venv/bin/python --version 2>&1)"'],
    { cwd: CLONE, encoding: 'utf8' },
  ).trim().split('\n');
  const have = [readFileSync(path.join(REPO_ROOT, 'node_modules', '.ragtime-npm.stamp'), 'utf8').trim(), readFileSync(path.join(REPO_ROOT, '.venv', '.ragtime-requirements.stamp'), 'utf8').trim()];
  if (stamps[0] !== have[0] || stamps[1] !== have[1]) throw new Error('node_modules/ or .venv/ is not what this working tree pins: run `make setup` first (the clone links to them)');
}

beforeAll(async () => {
  for (const dir of ['node_modules', '.venv', 'console/dist']) {
    if (!existsSync(path.join(REPO_ROOT, dir))) throw new Error(`${dir}/ is missing from ${REPO_ROOT}: run \`make setup\` first`);
  }
  expect(await copyWorkingTree(CLONE)).toBeGreaterThan(100);
  // A worktree may hold these three as links of its own (to another checkout's), which the copy took along.
  for (const dir of ['node_modules', '.venv', 'console/dist']) unlinkIfLink(path.join(CLONE, dir));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(CLONE, 'node_modules'));
  symlinkSync(path.join(REPO_ROOT, '.venv'), path.join(CLONE, '.venv'));
  cpSync(path.join(REPO_ROOT, 'console', 'dist'), path.join(CLONE, 'console', 'dist'), { recursive: true, dereference: true });
  assertInstalledHere();
  ports = await movedPorts();
});

afterAll(async () => {
  // A new shell with nothing exported: `make down` finds the clone's services by its .data/ (and its settings file).
  if (existsSync(path.join(CLONE, '.data'))) {
    const down = await run('make', ['down'], { cwd: CLONE, env: freshShell({}), timeoutMs: 120_000 });
    if (down.code !== 0) console.error(shown('make down', down));
  }
  rmSync(work, { recursive: true, force: true });
}, 180_000);

test('make demo on moved ports: exit 0, the tour in a session of its own that the console\'s tenant owns, the settings recorded', async () => {
  const started = Date.now();
  demo = await run('make', ['demo'], { cwd: CLONE, env: freshShell({ ...ports }), timeoutMs: 840_000 });
  demoSeconds = Math.round((Date.now() - started) / 1000);
  console.log(`first hour: make demo took ${demoSeconds} s on moved ports ${Object.values(ports).join(', ')}`);
  if (demo.code !== 0) throw new Error(shown('make demo', demo));
  tourSession = /session (demo-[0-9a-f]{8})/.exec(demo.stdout)?.[1] ?? '';
  expect(tourSession).not.toBe('');
  expect(demo.stdout).toContain(`asked over the API in session ${tourSession}: the console lists the tour's runs`);
  expect(demo.stdout).toContain(`the tour's runs are in session ${tourSession})`);
  const settings = readFileSync(path.join(CLONE, '.data', 'settings.env'), 'utf8');
  for (const name of PORT_NAMES) expect(settings).toContain(`\n${name}=${ports[name]}\n`);
  expect(settings).toMatch(new RegExp(`^RAGTIME_KB=${KB}$`, 'm'));
  // Issue 45 §3: the tenant of the console the demo started, for the runs of the user's shell.
  expect(settings).toMatch(/^RAGTIME_TENANT=demo$/m);
});

test('doctor in the user\'s shell: the clone\'s services on the moved ports, the demo\'s knowledge base from the settings file, all checks pass', async () => {
  const result = await ragtime(['doctor']);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toContain(`settings (environment > ${CLONE}/.data/settings.env > default)`);
  expect(result.stdout).toMatch(new RegExp(`^  TEMPORAL_ADDRESS +127\\.0\\.0\\.1:${ports.TEMPORAL_PORT} +environment \\(TEMPORAL_PORT=${ports.TEMPORAL_PORT}\\)$`, 'm'));
  expect(result.stdout).toMatch(new RegExp(`^  RAGTIME_KB +${KB} +settings file \\(RAGTIME_KB=${KB}\\)$`, 'm'));
  expect(result.stdout).toMatch(new RegExp(`^ok   temporal +127\\.0\\.0\\.1:${ports.TEMPORAL_PORT} `, 'm'));
  expect(result.stdout).toMatch(new RegExp(`^ok   worker +task queue ragtime +1 worker polling \\(\\d+@\\S+/kb=${KB}\\)`, 'm'));
  expect(result.stdout).toMatch(new RegExp(`^ok   milvus +127\\.0\\.0\\.1:${ports.MILVUS_PORT} +\\d+ collections?; default knowledge base ${KB}: \\d+ rows`, 'm'));
  expect(result.stdout).toMatch(new RegExp(`^ok   embeddings http://127\\.0\\.0\\.1:${ports.EMBEDDINGS_PORT}/v1 `, 'm'));
  expect(result.stdout.trim().split('\n').at(-1)).toBe('all 7 checks passed');
});

test('doctor in a shell that exported the default Temporal and embeddings ports (another checkout\'s services): those checks FAIL, exit 4', async () => {
  const result = await ragtime(['doctor'], freshShell({ ...ports, TEMPORAL_PORT: '7233', EMBEDDINGS_PORT: '8765' }));
  expect(result.code).toBe(4);
  expect(result.stdout).toMatch(new RegExp(`^FAIL temporal +127\\.0\\.0\\.1:7233 .*were started on 127\\.0\\.0\\.1:${ports.TEMPORAL_PORT} \\(`, 'm'));
  expect(result.stdout).toMatch(new RegExp(`^FAIL embeddings http://127\\.0\\.0\\.1:8765/v1 .*were started on http://127\\.0\\.0\\.1:${ports.EMBEDDINGS_PORT}/v1 \\(`, 'm'));
});

test('kb list: the demo\'s knowledge base, with the four sample documents', async () => {
  const result = await ragtime(['kb', 'list']);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(new RegExp(`${KB}.*\\b4\\b`));
});

test('docs list, no --kb: the documents of the demo\'s knowledge base', async () => {
  const result = await ragtime(['docs', 'list']);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  for (const name of SAMPLES) expect(result.stdout).toContain(`samples/knowledge/${name}`);
});

test('search, no --kb: evidence from the demo\'s knowledge base', async () => {
  const result = await ragtime(['search', 'Aurora X2 路由器的保修期']);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toContain('Aurora X2 路由器.md');
});

test('MCP search_knowledge over stdio, no knowledge base named: evidence from the demo\'s knowledge base', async () => {
  const reply = (await withMcp((client) => client.callTool({ name: 'search_knowledge', arguments: { query: 'Aurora X2 保修期', top_k: 3 } }))) as {
    isError?: boolean;
    structuredContent?: { kb: string; evidence: Array<{ source?: string; filename?: string }> };
  };
  expect(reply.isError ?? false).toBe(false);
  expect(reply.structuredContent?.kb).toBe(KB);
  expect(JSON.stringify(reply.structuredContent?.evidence)).toContain('Aurora X2 路由器.md');
});

test('the console\'s API (the demo\'s ragtime serve): the tour\'s runs, the waiting one too, and a question answered', async () => {
  const listed = await api('GET', `/api/runs?session=${tourSession}`);
  expect(listed.status).toBe(200);
  const runs = (listed.json as { runs: Array<{ status: string | null }> }).runs;
  // Eight stops and the console's question; the rewrite stop waits for an answer.
  expect(runs.length).toBeGreaterThanOrEqual(9);
  expect(runs.filter((row) => row.status === 'awaiting_input').length).toBeGreaterThanOrEqual(1);
  const asked = await api('POST', '/api/runs', { question: 'Nimbus C1 摄像头支持多大的存储卡？', wait: true });
  expect(asked.status).toBe(200);
  expect(asked.json).toMatchObject({ status: 'completed', route: 'answer' });
});

test('ragtime serve by hand (docs/CONSOLE.md), a token of its own: a question answered, not run_failed', async () => {
  const made = await ragtime(['token', 'new', 'acme']);
  expect(made.code).toBe(0);
  const token = /rt_[\w-]+/.exec(made.stdout)?.[0] ?? '';
  const tokens = /RAGTIME_API_TOKENS=(acme:[0-9a-f]{64})/.exec(made.stdout)?.[1] ?? '';
  expect([token, tokens].every((found) => found !== '')).toBe(true);
  const port = (await movedPorts()).TEMPORAL_PORT;
  const serve: ChildProcess = spawn('npx', ['ragtime', 'serve', '--port', String(port)], { cwd: CLONE, env: { ...userShell(), RAGTIME_API_TOKENS: tokens }, stdio: 'ignore', detached: true });
  try {
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    while (!(await fetch(`${base}/healthz`).then((r) => r.ok, () => false))) {
      if (Date.now() > deadline) throw new Error(`ragtime serve did not answer on ${base} within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const response = await fetch(`${base}/api/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Aurora X2 路由器的保修期是多久？', wait: true }),
      signal: AbortSignal.timeout(60_000),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'completed', route: 'answer' });
  } finally {
    if (serve.pid !== undefined) process.kill(-serve.pid, 'SIGTERM');
  }
});

test('ask twice without --session: two conversations of their own, the second not read as a follow-up of the first', async () => {
  const first = await ragtime(['ask', 'Aurora X2 路由器的保修期是多久？', '--json']);
  const second = await ragtime(['ask', '这款产品的价格是多少？', '--json']);
  const [a, b] = [first, second].map((asked) => JSON.parse(asked.stdout) as { sessionId: string; route: string; conversation: { turnsBefore: number } | null });
  expect([first.code, a?.route, a?.conversation?.turnsBefore]).toEqual([0, 'answer', 0]);
  expect(b?.sessionId).not.toBe(a?.sessionId);
  expect(b?.conversation?.turnsBefore).toBe(0);
});

test('issue 45 §3 a question asked in the user\'s shell is the demo tenant\'s: the console (its API, the demo token) opens it', async () => {
  const asked = await ragtime(['ask', 'Aurora X2 路由器的保修期是多久？', '--json']);
  const outcome = JSON.parse(asked.stdout) as { workflowId: string; sessionId: string };
  expect(asked.code).toBe(0);
  expect((await api('GET', `/api/runs/${outcome.workflowId}`)).status).toBe(200);
  expect((await api('GET', `/api/sessions/${outcome.sessionId}/turns`)).json).toMatchObject({ turns: [{ workflowId: outcome.workflowId }] });
});

test('ask --kb with a knowledge base that does not exist: exit 2, UNKNOWN_KB, nothing started', async () => {
  const refused = await ragtime(['ask', 'Aurora X2 路由器的保修期是多久？', '--kb', 'no_such_kb', '--session', 'first-hour-unknown-kb']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/^ragtime: UNKNOWN_KB: knowledge base "no_such_kb" does not exist/);
  const runs = await ragtime(['runs', '--session', 'first-hour-unknown-kb', '--json']);
  expect([runs.code, JSON.parse(runs.stdout)]).toEqual([0, []]);
});

test('chat, two lines piped: the follow-up is read with the first turn, both answered from the demo\'s knowledge base', async () => {
  const chat = await run('npx', ['ragtime', 'chat'], { cwd: CLONE, env: userShell(), timeoutMs: 120_000, input: 'Aurora X2 路由器的保修期是多久？\n它支持 WPA3 吗？\n' });
  expect({ code: chat.code, stderr: chat.stderr }).toEqual({ code: 0, stderr: '' });
  expect(chat.stdout).toContain('2 年保修');
  expect(chat.stdout).toContain('WPA3');
});

test('MCP ask_knowledge over stdio, no knowledge base named: answered from the demo\'s knowledge base, which the result names', async () => {
  const reply = (await withMcp((client) => client.callTool({ name: 'ask_knowledge', arguments: { question: 'Aurora X2 路由器的保修期是多久？' } }))) as {
    isError?: boolean;
    structuredContent?: { kb: string | null; status: string; route: string; answer: { text: string } | null };
  };
  expect(reply.isError ?? false).toBe(false);
  expect(reply.structuredContent).toMatchObject({ kb: KB, status: 'completed', route: 'answer' });
  expect(reply.structuredContent?.answer?.text).toContain('2 年');
});

test('the console in Chromium, at the demo\'s address: sign in with the demo token, ask two questions, both answered', async () => {
  const token = readFileSync(path.join(CLONE, '.data', 'console', 'demo-token'), 'utf8').trim();
  const browser = await launchConsoleBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${ports.RAGTIME_API_PORT}/`);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.goto(`http://127.0.0.1:${ports.RAGTIME_API_PORT}/#/ask`);
    await page.waitForURL(/#\/ask\?session=/);
    const settled = page.locator('ol.conversation article.turn');
    for (const [i, question] of ['Aurora X2 路由器的保修期是多久？', 'Nimbus C1 摄像头支持多大的存储卡？'].entries()) {
      await page.getByLabel('Question').fill(question);
      await page.getByLabel('Question').press('Enter');
      await settled.nth(i).locator('.answer-text').waitFor({ timeout: 60_000 });
    }
    const answers = await settled.locator('.answer-text').allTextContents();
    expect(answers).toHaveLength(2);
    expect(answers[0]).toContain('2 年');
    expect(answers[1]).toMatch(/存储卡|GB/);
  } finally {
    await browser.close();
  }
});
