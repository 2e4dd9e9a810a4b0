/**
 * A real HTTP server on 127.0.0.1 (port 0) that speaks the Jina-compatible `POST /v1/rerank` contract (spec §6.6.2),
 * so tests run the real rerank transport. Each test scripts its replies: a status and body, or `'hang'` (no reply
 * at all, for timeouts). Every request is recorded with its headers and parsed body.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type RerankScript = { status: number; body: string } | 'hang';

export type RecordedRerankRequest = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
};

/** A JSON reply (200 unless told otherwise). */
export const jsonReply = (value: unknown, status = 200): RerankScript => ({ status, body: JSON.stringify(value) });

export class LoopbackRerankServer {
  readonly requests: RecordedRerankRequest[] = [];
  private queued: RerankScript[] = [];
  private standing: RerankScript = jsonReply({ results: [] });

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<LoopbackRerankServer> {
    const server = http.createServer();
    const instance = new LoopbackRerankServer(server);
    server.on('request', (req, res) => instance.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  /** The value for RERANK_BINDING_HOST (the endpoint appends /v1/rerank). */
  get host(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Replies for the next requests, in order; after them the standing reply. */
  reply(...scripts: RerankScript[]): void {
    this.queued.push(...scripts);
  }

  /** The reply for every request once the queue is empty. */
  always(script: RerankScript): void {
    this.standing = script;
  }

  reset(): void {
    this.requests.length = 0;
    this.queued = [];
    this.standing = jsonReply({ results: [] });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/rerank') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      const script = this.queued.shift() ?? this.standing;
      if (script === 'hang') return; // never answer; the client's timeout must end the request
      res.writeHead(script.status, { 'Content-Type': 'application/json' }).end(script.body);
    });
  }
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
