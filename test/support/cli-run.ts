/**
 * The `ragtime` command as a subprocess (`node bin/ragtime.js …` from the repository root), for end-to-end tests,
 * and a loopback port nobody listens on, for the unreachable-service cases.
 */
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import { format } from 'node:util';
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

/**
 * `ragtime <args>` in this process (bin/main.ts's `run`, the function bin/ragtime.js calls), with `env` as the
 * environment and the output captured: the same command code as the subprocess without a Node start and a tsx
 * compile per command (1–3 s each on this machine, issue 31). A file keeps one subprocess run per command surface
 * (runRagtime) for what only a process shows: bin/ragtime.js, the real exit status, a fresh module load. Commands run
 * one at a time (the environment is swapped for the duration), and never those that wait for stdin or run a server.
 */
export async function runRagtimeInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const { run } = await import('../../bin/main');
  const stdout: string[] = [];
  const stderr: string[] = [];
  const line = (sink: string[]) => (...values: unknown[]) => void sink.push(`${format(...values)}\n`);
  const chunk = (sink: string[]) => (data: string | Uint8Array) => (sink.push(typeof data === 'string' ? data : Buffer.from(data).toString('utf8')), true);
  const spies = [
    jest.spyOn(console, 'log').mockImplementation(line(stdout)),
    jest.spyOn(console, 'info').mockImplementation(line(stdout)),
    jest.spyOn(console, 'error').mockImplementation(line(stderr)),
    jest.spyOn(console, 'warn').mockImplementation(line(stderr)),
    jest.spyOn(process.stdout, 'write').mockImplementation(chunk(stdout) as typeof process.stdout.write),
    jest.spyOn(process.stderr, 'write').mockImplementation(chunk(stderr) as typeof process.stderr.write),
  ];
  const saved = process.env;
  process.env = { ...env };
  try {
    const code = await run([process.execPath, RAGTIME_BIN, ...args]);
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    process.env = saved;
    for (const spy of spies) spy.mockRestore();
  }
}
