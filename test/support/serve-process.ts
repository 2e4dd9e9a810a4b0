import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './services';
import { RAGTIME_BIN, tail } from './worker-process';

export type ServeProcess = { child: ChildProcess; url: string; output: () => string };

/** Starts `ragtime serve --port 0` and resolves with its URL once it prints its start-up line. */
export function startServeProcess(env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RAGTIME_BIN, 'serve', '--port', '0'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`ragtime serve did not start in ${timeoutMs} ms:\n${tail(output)}`)), timeoutMs);
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = /^ragtime HTTP API: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, output: () => output });
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ragtime serve exited (${code}) before listening:\n${tail(output)}`));
    });
  });
}
