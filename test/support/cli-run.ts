/**
 * The `ragtime` command as a subprocess (`node bin/ragtime.js …` from the repository root), for end-to-end tests,
 * and a loopback port nobody listens on, for the unreachable-service cases.
 */
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import { REPO_ROOT } from './services';
import { RAGTIME_BIN } from './worker-process';

export type CliRun = { code: number | null; stdout: string; stderr: string };

/**
 * Runs `ragtime <args>` with `env` and resolves when it exits (killed after `timeoutMs`). With `input`, that text is
 * piped to its stdin (`ragtime chat`); either way stdin is then closed, so nothing waits for input.
 */
export function runRagtime(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 45_000, input?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RAGTIME_BIN, ...args], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // A command that exits without reading its input closes the pipe first (EPIPE): not the test's failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A loopback port nobody listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
