/**
 * Where scripts/services.sh puts the PostgreSQL cluster (issue 14 §14). As root the server runs as the `postgres`
 * OS user, and a clone under a folder only root may enter (`mktemp -d`, /root) hid .data/postgres from it:
 * `initdb: error: could not access directory ".../.data/postgres": Permission denied`. The script then keeps the
 * cluster in /var/tmp/ragtime-postgres-<hash of the data dir>, linked from .data/postgres (docs/OPERATIONS.md).
 *
 * This runs a copy of the scripts in such a folder (mode 0700, as `mktemp -d` makes it) on a free port of its own,
 * beside the services of the suite. Not root: the folder is the caller's, so the cluster stays in .data/postgres.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { REPO_ROOT } from '../support/services';

const AS_ROOT = process.getuid?.() === 0;

let base = '';
let root = '';
let port = 0;
let cluster = '';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Runs the copied scripts/services.sh; resolves with its exit code and output (never rejects on a non-zero exit). */
async function services(...args: string[]): Promise<{ code: number; out: string }> {
  // RAGTIME_DATA_DIR set explicitly: scripts/env.sh keeps one from the environment (the suite's own .data).
  // CI=true: a failing start prints the last lines of its log (initdb's error) after its one-line reason.
  const env = { ...process.env, RAGTIME_DATA_DIR: join(root, '.data'), POSTGRES_PORT: String(port), CI: 'true' };
  return new Promise((resolve) => {
    execFile('bash', [join(root, 'scripts/services.sh'), ...args], { env, cwd: root, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'ragtime-pg-home-'));
  expect(statSync(base).mode & 0o777).toBe(0o700);
  root = join(base, 'ragtime');
  mkdirSync(join(root, 'scripts'), { recursive: true });
  for (const file of ['services.sh', 'env.sh']) copyFileSync(join(REPO_ROOT, 'scripts', file), join(root, 'scripts', file));
  port = await freePort();
});

afterAll(async () => {
  if (root === '') return;
  await services('down', 'postgres');
  if (cluster !== '') rmSync(cluster, { recursive: true, force: true });
  rmSync(base, { recursive: true, force: true });
});

test('issue 14 §14 a clone in a folder only its owner may enter: up, status, a query, down', async () => {
  const up = await services('up', 'postgres');
  // The whole output in the expectation, so a failure shows the script's one-line reason.
  expect(up).toEqual({ code: 0, out: expect.stringMatching(/^postgres: started \(pid \d+\)/) });
  const link = join(root, '.data/postgres');
  if (AS_ROOT) {
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    cluster = readlinkSync(link);
    expect(cluster).toMatch(/^\/var\/tmp\/ragtime-postgres-[0-9a-f]{12}$/);
    const stat = statSync(cluster);
    expect(stat.mode & 0o777).toBe(0o700);
    expect(stat.uid).not.toBe(0);
    expect(up.out).toContain(`(cluster ${cluster})`);
  } else {
    expect(lstatSync(link).isDirectory()).toBe(true);
  }

  const status = await services('status', 'postgres');
  expect(status.code).toBe(0);
  expect(status.out).toMatch(/^postgres +running +pid \d+/);

  const client = new Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/ragtime_test` });
  await client.connect();
  try {
    const { rows } = await client.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir");
    expect(rows[0]?.dir).toBe(AS_ROOT ? cluster : link);
  } finally {
    await client.end();
  }

  expect(await services('down', 'postgres')).toMatchObject({ code: 0, out: expect.stringMatching(/^postgres: stopped \(pid \d+\)/) });
  expect((await services('status', 'postgres')).code).toBe(3);
});
