/**
 * A bare `scripts/services.sh down` (`make down`) stops every service the project started, the local model service
 * of `make llm` included (issue 45 §3: a newcomer's `make down` left it running). No services: a copy of the scripts
 * in a folder of its own, with its own data dir, and a stand-in for `node bin/ragtime.js llm serve` (a node process
 * with that command line, which is how services.sh knows its own service) in place of the model server.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/services';

let root = '';
let standIn: number | undefined;

beforeAll(() => {
  // realpath: services.sh compares the command line with its own root as `cd … && pwd` prints it.
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ragtime-services-down-')));
  mkdirSync(path.join(root, 'scripts'));
  mkdirSync(path.join(root, 'bin'));
  for (const file of ['services.sh', 'env.sh']) copyFileSync(path.join(REPO_ROOT, 'scripts', file), path.join(root, 'scripts', file));
  writeFileSync(path.join(root, 'bin', 'ragtime.js'), 'setInterval(() => {}, 1000);\n');
});

afterAll(() => {
  if (standIn !== undefined) {
    try {
      process.kill(standIn, 'SIGKILL');
    } catch {
      // already stopped, as the test expects
    }
  }
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

/** Runs the copied scripts/services.sh with the copy's data dir; resolves with its exit code and output. */
async function services(...args: string[]): Promise<{ code: number; out: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: os.homedir(), RAGTIME_DATA_DIR: path.join(root, '.data'), SERVICES_STOP_TIMEOUT: '10' };
  return new Promise((resolve) => {
    execFile('bash', [path.join(root, 'scripts/services.sh'), ...args], { env, cwd: root, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('issue 45 §3 a bare `down` stops the local model service started by `make llm`, and says so', async () => {
  // As services.sh launches it: its own process group (detached), its pid in .data/run/llm.pid.
  const child = spawn('node', [path.join(root, 'bin', 'ragtime.js'), 'llm', 'serve', '--port', '1'], { detached: true, stdio: 'ignore' });
  child.unref();
  standIn = child.pid;
  if (standIn === undefined) throw new Error('the stand-in did not start');
  mkdirSync(path.join(root, '.data', 'run'), { recursive: true });
  writeFileSync(path.join(root, '.data', 'run', 'llm.pid'), `${standIn}\n`);

  const status = await services('status');
  expect(status.out).toMatch(new RegExp(`^llm +running +pid ${standIn} `, 'm'));

  const down = await services('down');
  expect(down.code).toBe(0);
  expect(down.out).toContain(`llm: stopped (pid ${standIn})`);
  expect(down.out).toMatch(/^temporal: not running$/m);
  // The stand-in exits on SIGTERM; its zombie is gone once node reaps it.
  for (let i = 0; i < 50 && alive(standIn); i++) await new Promise((r) => setTimeout(r, 100));
  expect(alive(standIn)).toBe(false);

  // Stopped, it is no longer listed by a bare status or down.
  expect((await services('down')).out).not.toContain('llm');
});
