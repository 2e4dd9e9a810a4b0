import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CodecHandler } from './codec-handler';

/** Payload batches of a long history can be large; anything beyond this is refused with 413. */
export const CODEC_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export type RunningCodecServer = { url: string; server: Server; close(): Promise<void> };

class BodyTooLarge extends Error {}

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped (not kept), so the client gets the 413 instead of a reset.
      if (size > limit) reject(new BodyTooLarge());
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * Serves a codec handler over plain node:http (`ragtime codec-server`): the body is read up to `bodyLimit` and
 * handed over as text; the handler answers everything else. Nothing is logged per request — the Temporal UI's
 * form of the endpoint carries the token in the path.
 */
export async function startCodecServer(options: { handler: CodecHandler; host: string; port: number; bodyLimit?: number }): Promise<RunningCodecServer> {
  const limit = options.bodyLimit ?? CODEC_BODY_LIMIT_BYTES;
  const server = createServer((request, response) => {
    const send = (status: number, headers: Record<string, string>, body?: unknown) => {
      response.writeHead(status, headers);
      response.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const handle = async () => {
      let body: string | undefined;
      if (request.method === 'POST') {
        try {
          body = await readBody(request, limit);
        } catch (error) {
          if (error instanceof BodyTooLarge) {
            send(413, { 'content-type': 'application/json; charset=utf-8', connection: 'close' }, { error: 'PAYLOAD_TOO_LARGE', message: `the body is larger than ${limit} bytes` });
            return;
          }
          throw error;
        }
      }
      const result = await options.handler({ method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers, body });
      send(result.status, result.headers, result.body);
    };
    handle().catch((error: unknown) => {
      // The codec's own failures are answered inside the handler; what lands here is unexpected: logged, and
      // answered without detail.
      console.error('ragtime codec server: unexpected error', error);
      if (!response.headersSent) send(500, { 'content-type': 'application/json; charset=utf-8' }, { error: 'INTERNAL', message: 'the codec server failed; see its log' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    server,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
