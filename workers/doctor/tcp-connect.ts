import * as net from 'node:net';

/**
 * Opens and closes one TCP connection to host:port. Temporal's client, given a closed port, retries until its
 * deadline and then says only "Failed to connect before the deadline"; this says "connect ECONNREFUSED …" at once.
 * Addresses that are not host:port resolve without a check (the client's own error stands then).
 */
export function tcpConnect(address: string, signal: AbortSignal): Promise<void> {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address);
  if (match === null || match[1] === undefined || match[2] === undefined) return Promise.resolve();
  const [host, port] = [match[1], Number(match[2])];
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const abort = () => socket.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', abort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', abort);
      socket.end();
      resolve();
    });
    socket.once('error', (error) => {
      signal.removeEventListener('abort', abort);
      reject(error);
    });
  });
}
