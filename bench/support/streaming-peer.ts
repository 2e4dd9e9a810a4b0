import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

/*
 * The streaming LangGraph.js peer of bench/streaming.ts (bench/peers/langgraph-streaming/stream.mjs) as the benchmark
 * drives it: installed once in a temporary directory (`npm ci --offline`, else `npm ci`; kept while the lock file is
 * unchanged), then one long-lived process that runs one question per request, so runs alternate with ragtime's.
 */

/** One peer run, epoch ms: when it started, each answer token chunk as the caller received it, when the stream ended. */
export type PeerRun = { id: string; started: number; tokens: Array<{ at: number; chars: number }>; done: number; text: string; answer: string | null };

export type StreamingPeer = { pid: number; describe: string; run(id: string): Promise<PeerRun>; stop(): Promise<void> };

/** A copy of the peer with its dependencies installed, reused while its lock file is unchanged. */
export function preparePeer(source: string): string {
  const lock = path.join(source, 'package-lock.json');
  if (!existsSync(path.join(source, 'stream.mjs')) || !existsSync(lock)) throw new Error(`no streaming LangGraph.js peer at ${source} (stream.mjs and package-lock.json)`);
  const target = path.join(os.tmpdir(), 'ragtime-langgraph-streaming-peer');
  const copyScripts = () => {
    for (const file of readdirSync(source).filter((name) => name.endsWith('.mjs'))) cpSync(path.join(source, file), path.join(target, file));
  };
  const ready = existsSync(path.join(target, 'node_modules')) && existsSync(path.join(target, 'package-lock.json'));
  if (ready && readFileSync(path.join(target, 'package-lock.json'), 'utf8') === readFileSync(lock, 'utf8')) {
    copyScripts();
    return target;
  }
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) cpSync(path.join(source, file), path.join(target, file));
  copyScripts();
  // The copy of a read-only folder is read-only too; npm needs to write node_modules there.
  spawnSync('chmod', ['-R', 'u+w', target]);
  console.log(`installing the streaming peer's dependencies in ${target} (npm ci --offline, else npm ci)`);
  const offline = spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: target, stdio: 'inherit' });
  if (offline.status !== 0) {
    const online = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: target, stdio: 'inherit' });
    if (online.status !== 0) throw new Error(`npm ci failed in ${target}`);
  }
  return target;
}

export async function startStreamingPeer(dir: string, args: string[]): Promise<StreamingPeer> {
  const child: ChildProcessWithoutNullStreams = spawn('node', ['stream.mjs', ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (data: Buffer) => process.stderr.write(`peer: ${data.toString()}`));
  const waiting = new Map<string, { resolve: (run: PeerRun) => void; reject: (error: Error) => void }>();
  let onReady: ((line: { peer: string }) => void) | null = null;
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => {
    exited = true;
    for (const pending of waiting.values()) pending.reject(new Error('the streaming peer exited'));
    resolve();
  }));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const message = JSON.parse(line) as { ready?: boolean; peer?: string; id?: string; error?: string } & Partial<PeerRun>;
    if (message.ready) onReady?.({ peer: message.peer ?? 'langgraph.js' });
    const pending = message.id === undefined ? undefined : waiting.get(message.id);
    if (!pending || message.id === undefined) return;
    waiting.delete(message.id);
    if (message.error) pending.reject(new Error(`peer run ${message.id}: ${message.error}`));
    else pending.resolve(message as PeerRun);
  });
  const ready = await Promise.race([
    new Promise<{ peer: string }>((resolve) => (onReady = resolve)),
    exit.then(() => Promise.reject(new Error('the streaming peer exited before it was ready'))),
  ]);
  return {
    pid: child.pid ?? -1,
    describe: ready.peer,
    run: (id) =>
      new Promise<PeerRun>((resolve, reject) => {
        if (exited) return reject(new Error('the streaming peer has exited'));
        waiting.set(id, { resolve, reject });
        child.stdin.write(`${JSON.stringify({ id, kind: 'fast' })}\n`);
      }),
    async stop() {
      if (exited) return;
      child.stdin.end();
      await exit;
    },
  };
}
