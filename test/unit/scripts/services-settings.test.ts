/**
 * The tenant of the CLI's runs in the settings file (issue 45 §3): `scripts/services.sh up` with the api service (the
 * console, for tenant "demo": `make demo` names it) records RAGTIME_TENANT=demo in .data/settings.env, and a later
 * `up` without it keeps the line, as it keeps RAGTIME_KB. No services: a copy of the scripts without node_modules, on
 * a data dir and free ports of its own, so each start stops at "node_modules/… is missing" after the file is written.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseConfig } from '../../../core/config';
import { nodeConfigFiles } from '../../../runtime/load-config';
import { freePort } from '../../support/local-process';
import { scriptSandbox, standInWeights } from '../../support/script-sandbox';

let root = '';

beforeAll(() => {
  root = scriptSandbox('ragtime-services-settings-');
  // A stand-in for the local model's cached weights, so that `up llm` gets as far as node_modules without a download.
  standInWeights(path.join(root, 'cache'), 'stand-in');
});
afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

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
