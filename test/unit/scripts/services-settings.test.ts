/**
 * The tenant of the CLI's runs in the settings file (issue 45 §3): `scripts/services.sh up` with the api service (the
 * console, for tenant "demo": `make demo` names it) records RAGTIME_TENANT=demo in .data/settings.env, and a later
 * `up` without it keeps the line, as it keeps RAGTIME_KB. No services: a copy of the scripts without node_modules, on
 * a data dir and free ports of its own, so each start stops at "node_modules/… is missing" after the file is written.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseConfig } from '../../../core/config';
import { nodeConfigFiles } from '../../../runtime/load-config';
import { REPO_ROOT } from '../../support/services';

const SHA256 = 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046'; // scripts/llm-weights.sh's pin
let root = '';

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ragtime-services-settings-')));
  mkdirSync(path.join(root, 'scripts'));
  for (const file of ['services.sh', 'env.sh', 'llm-weights.sh']) copyFileSync(path.join(REPO_ROOT, 'scripts', file), path.join(root, 'scripts', file));
  // A stand-in for the local model's cached weights, so that `up llm` gets as far as node_modules without a download.
  mkdirSync(path.join(root, 'cache'));
  writeFileSync(path.join(root, 'cache', `${SHA256}.gguf`), 'stand-in');
  writeFileSync(path.join(root, 'cache', `${SHA256}.gguf.sha256`), SHA256);
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

async function services(...args: string[]): Promise<{ code: number; out: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: os.homedir(),
    RAGTIME_DATA_DIR: path.join(root, '.data'),
    RAGTIME_LLM_CACHE: path.join(root, 'cache'),
    RAGTIME_API_PORT: String(await freePort()),
    LLM_PORT: String(await freePort()),
  };
  return new Promise((resolve) => {
    execFile('bash', [path.join(root, 'scripts/services.sh'), ...args], { env, cwd: root, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, out: `${stdout}${stderr}` });
    });
  });
}

const settingsFile = () => path.join(root, '.data', 'settings.env');

test('issue 45 §3 up with the api service records RAGTIME_TENANT=demo; an up without it keeps it; every process reads it', async () => {
  const api = await services('up', 'api');
  expect(api.out).toMatch(/services: api: cannot start, node_modules\/tsx\/package.json is missing/);
  expect(readFileSync(settingsFile(), 'utf8')).toMatch(/^RAGTIME_TENANT=demo$/m);

  const llm = await services('up', 'llm');
  expect(llm.out).toMatch(/services: llm: cannot start, node_modules\/node-llama-cpp\/package.json is missing/);
  expect(readFileSync(settingsFile(), 'utf8')).toMatch(/^RAGTIME_TENANT=demo$/m);

  // What a ragtime process of that checkout then reads (the file is parsed by parseConfig: a line it does not know
  // would be INVALID_CONFIG).
  const config = parseConfig({ RAGTIME_DATA_DIR: path.join(root, '.data') }, nodeConfigFiles);
  expect(config.tenant).toBe('demo');
  expect(config.settings.used.find((use) => use.name === 'RAGTIME_TENANT')).toEqual({ name: 'RAGTIME_TENANT', value: 'demo', source: 'settings file', from: 'RAGTIME_TENANT=demo' });
});
