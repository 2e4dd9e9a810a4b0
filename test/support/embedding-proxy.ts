/**
 * A loopback HTTP proxy in front of the real embeddings server that counts the embedding requests passing through,
 * so a test can see how many times a retriever built by workers/build-adapters.ts embedded its query (spec §6.1:
 * once, even when it falls back to dense recall) without replacing the embedder.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export class CountingEmbeddingProxy {
  /** Bodies of the POST …/embeddings requests, parsed, in arrival order. */
  readonly embeddingRequests: Array<{ input: unknown; input_type?: unknown }> = [];

  private constructor(
    private readonly server: http.Server,
    private readonly target: URL,
  ) {}

  /** `targetBaseUrl`: the real server's OpenAI base URL, e.g. http://127.0.0.1:8765/v1. */
  static async start(targetBaseUrl: string): Promise<CountingEmbeddingProxy> {
    const server = http.createServer();
    const proxy = new CountingEmbeddingProxy(server, new URL(targetBaseUrl));
    server.on('request', (req, res) => void proxy.forward(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The base URL to give EMBEDDING_BASE_URL: same path as the target's, on the proxy's port. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.target.pathname.replace(/\/+$/, '')}`;
  }

  reset(): void {
    this.embeddingRequests.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method === 'POST' && (req.url ?? '').endsWith('/embeddings')) {
      this.embeddingRequests.push(JSON.parse(body.toString('utf8')) as { input: unknown });
    }
    try {
      const reply = await fetch(new URL(req.url ?? '/', this.target.origin), {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      });
      res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await reply.arrayBuffer()));
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${String(error)}`);
    }
  }
}
