import type { ChildProcess } from 'node:child_process';
import * as net from 'node:net';

/* What the private servers of a test (Temporal dev server, Milvus Lite) share: a free port, and waiting for an exit. */

/** A loopback port free right now (bound, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the process has exited (at once if it already has). */
export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
