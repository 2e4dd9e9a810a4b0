import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { hashToken } from '../../server/http/token-auth';
import { TEST_CODEC_KEY_1 } from '../support/codec-keys';
import { REPO_ROOT, assertReachable, services } from '../support/services';
import { newTaskQueue } from '../workflows/harness';

/*
 * `ragtime serve` and `ragtime token` as an operator runs them (bin/ragtime.js in a child process): the start-up
 * lines, the API on the configured Temporal and SQLite audit database, a clean stop on SIGTERM, and clear refusals.
 */

const BIN = path.join(REPO_ROOT, 'bin', 'ragtime.js');
const TOKEN = 'cli-serve-test-token';
let dataDir: string;

beforeAll(async () => {
  await assertReachable('Temporal (dev server)', services.temporalAddress);
  dataDir = mkdtempSync(path.join(tmpdir(), 'ragtime-serve-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The environment of a fresh operator shell: only what the test sets (no DATABASE_URL, no tokens from outside). */
const envWith = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  TEMPORAL_ADDRESS: services.temporalAddress,
  RAGTIME_DATA_DIR: dataDir,
  ...extra,
});

const run = (args: string[], env: NodeJS.ProcessEnv, input?: string) =>
  spawnSync(process.execPath, [BIN, ...args], { env, input, encoding: 'utf8', timeout: 30_000 });

test('ragtime token hash prints the SHA-256 (argument or stdin); token new prints a token and its config entry', () => {
  const env = envWith({});
  expect(run(['token', 'hash', 'abc'], env).stdout.trim()).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  expect(run(['token', 'hash'], env, 'abc\n').stdout.trim()).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  const made = run(['token', 'new', 'acme'], env);
  expect(made.status).toBe(0);
  const token = /^token: {2}(rt_[\w-]{43})$/m.exec(made.stdout)?.[1];
  expect(token).toBeDefined();
  expect(made.stdout).toContain(`config: RAGTIME_API_TOKENS=acme:${hashToken(token ?? '')}`);
  const bad = run(['token', 'new', 'a b'], env);
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain('ragtime: INVALID_INPUT: invalid tenant');
  // Issue 35 §3: the operator's token, for GET /api/doctor, configured apart from the tenants'.
  const operator = run(['token', 'new', '--operator'], env);
  const operatorToken = /^token: {2}(rt_[\w-]{43})$/m.exec(operator.stdout)?.[1];
  expect([operator.status, operator.stdout]).toEqual([0, expect.stringContaining(`config: RAGTIME_API_OPERATOR_TOKENS=${hashToken(operatorToken ?? '')}`)]);
  const mixed = run(['token', 'new', 'acme', '--operator'], env);
  expect([mixed.status, mixed.stderr]).toEqual([2, expect.stringContaining("an operator's token has no tenant")]);
  expect(run(['token', 'new'], env).status).toBe(2);
});

test('ragtime serve without tokens refuses to start, and says how to make one', () => {
  const result = run(['serve', '--port', '0'], envWith({}));
  expect(result.status).toBe(2);
  expect(result.stderr).toMatch(/^ragtime: INVALID_CONFIG: no API tokens are configured.*ragtime token new <tenant>/);
});

describe('ragtime serve', () => {
  let child: ChildProcess;
  let url: string;
  let output = '';
  const taskQueue = newTaskQueue();

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      env: envWith({ RAGTIME_API_TOKENS: `acme:${hashToken(TOKEN)}`, TEMPORAL_TASK_QUEUE: taskQueue, RAGTIME_CODEC_KEYS: TEST_CODEC_KEY_1 }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`ragtime serve did not start:\n${output}`)), 30_000);
      const check = () => {
        const match = /^ragtime HTTP API: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout?.on('data', check);
      child.once('exit', (code) => reject(new Error(`ragtime serve exited with ${code}:\n${output}`)));
    });
  }, 40_000);
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  const auth = { authorization: `Bearer ${TOKEN}` };

  test('prints the URL, the OpenAPI URL, the tenants, Temporal, the audit database and the codec', () => {
    expect(output).toContain(`  OpenAPI:  ${url}/openapi.json`);
    expect(output).toContain('  tenants:  acme (1 token)');
    expect(output).toContain(`  Temporal: ${services.temporalAddress}, namespace default, task queue ${taskQueue}`);
    expect(output).toContain(`  audit:    ${path.join(dataDir, 'audit.sqlite')}`);
    expect(output).toContain(`  codec:    ${url}/codec/encode, /codec/decode`);
    expect(output).not.toContain(TOKEN);
  });

  test('serves health and OpenAPI publicly, everything else behind the token', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain('/api/diagnosis/{sessionId}/trace');
    expect((await fetch(`${url}/api/diagnosis/s-1/trace`)).status).toBe(401);
    expect((await fetch(`${url}/api/diagnosis/s-1/trace`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${url}/api/runs/rag-s-1-12345678`, { headers: auth })).status).toBe(404); // Temporal was asked
  });

  test('an ask with no worker on the task queue is a 503 that names the fix', async () => {
    const response = await fetch(`${url}/api/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ question: '丹瑾是什么属性？' }),
    });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { message: string }).message).toContain(`no ragtime worker polls task queue "${taskQueue}"`);
  });

  test('a second serve on the same port says so in one line and exits 2 (no raw EADDRINUSE)', () => {
    const port = Number(new URL(url).port);
    const second = run(['serve', '--port', String(port)], envWith({ RAGTIME_API_TOKENS: `acme:${hashToken(TOKEN)}`, TEMPORAL_TASK_QUEUE: taskQueue, RAGTIME_CODEC_KEYS: TEST_CODEC_KEY_1 }));
    expect(second.status).toBe(2);
    expect(second.stderr.trim()).toBe(`ragtime: INVALID_CONFIG: ragtime HTTP API: 127.0.0.1:${port} is already in use by another process; stop it, or choose another port (--port or RAGTIME_API_PORT)`);
  });

  test('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
