import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { exited, freePort } from './local-process';
import { pollUntil, REPO_ROOT } from './services';

/*
 * A Temporal dev server of a test's own, on a free loopback port with its own SQLite file, for tests that read the
 * server's storage (the shared one of `make test` holds every other test's runs). Same binary and search
 * attributes as scripts/services.sh; no Web UI.
 */

const TEMPORAL = path.join(REPO_ROOT, '.venv', 'bin', 'temporal');
// As scripts/services.sh registers them (workflows/search-attributes.ts).
const SEARCH_ATTRIBUTES = ['RagSessionId=Keyword', 'RagStatus=Keyword', 'RagRoute=Keyword', 'RagComplexity=Keyword', 'RagHitlRounds=Int', 'RagKb=Keyword'];

export type PrivateDevServer = {
  address: string;
  dbFile: string;
  stop(): Promise<void>;
  /** SIGKILL: the server dies without a shutdown; start it again with the same `port` and folder. */
  kill(): Promise<void>;
};

/**
 * Starts the server with its database at `dir`/temporal.db and waits until it answers. `port`: to restart a
 * server on the port its clients and workers know (default: a free one).
 */
export async function startPrivateDevServer(dir: string, options: { port?: number } = {}): Promise<PrivateDevServer> {
  if (!existsSync(TEMPORAL)) throw new Error(`${TEMPORAL} is missing: run scripts/setup.sh (make setup)`);
  const port = options.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const dbFile = path.join(dir, 'temporal.db');
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--db-filename', dbFile, '--log-level', 'error'];
  for (const attribute of SEARCH_ATTRIBUTES) args.push('--search-attribute', attribute);
  const child = spawn(TEMPORAL, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = `${stderr}${chunk.toString()}`.slice(-2000);
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited(child);
  };
  try {
    await pollUntil(
      `the private dev server on ${address}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}: ${stderr}`);
        const ok = await new Promise<boolean>((resolve) => {
          const probe = spawn(TEMPORAL, ['operator', 'namespace', 'describe', '--namespace', 'default', '--address', address, '--command-timeout', '3s'], { stdio: 'ignore' });
          probe.once('exit', (code) => resolve(code === 0));
        });
        return ok ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, dbFile, stop: () => stop(), kill: () => stop('SIGKILL') };
}
