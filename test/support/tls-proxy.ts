import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';

/*
 * A TLS-terminating TCP proxy on loopback, in front of a plaintext gRPC service (the Temporal dev server and Milvus
 * Lite serve no TLS themselves): what a secured cluster's front door looks like to ragtime. It offers HTTP/2 by ALPN
 * (gRPC clients insist on it; PostgreSQL's direct TLS wants "postgresql"), and with `clientCa` it asks for a client
 * certificate signed by that CA (mTLS).
 */

export type TlsProxy = {
  address: string;
  /** Handshakes refused so far, with the reason TLS gave (an unknown client, no client certificate…). */
  refusals: string[];
  /** Handshakes completed so far (connections carried to the target). */
  accepted(): number;
  close(): Promise<void>;
};

export async function startTlsProxy(options: { target: string; cert: string; key: string; clientCa?: string; alpn?: string[] }): Promise<TlsProxy> {
  const [targetHost, targetPort] = [options.target.slice(0, options.target.lastIndexOf(':')), Number(options.target.slice(options.target.lastIndexOf(':') + 1))];
  const sockets = new Set<net.Socket>();
  const refusals: string[] = [];
  let accepted = 0;
  const server = tls.createServer(
    {
      cert: readFileSync(options.cert),
      key: readFileSync(options.key),
      ALPNProtocols: options.alpn ?? ['h2'],
      ...(options.clientCa ? { ca: readFileSync(options.clientCa), requestCert: true, rejectUnauthorized: true } : {}),
    },
    (secure) => {
      accepted += 1;
      const upstream = net.connect(targetPort, targetHost);
      for (const socket of [secure, upstream]) {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      secure.pipe(upstream).pipe(secure);
      secure.once('close', () => upstream.destroy());
      upstream.once('close', () => secure.destroy());
    },
  );
  server.on('tlsClientError', (error) => refusals.push(error.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    refusals,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
