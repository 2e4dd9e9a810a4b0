import { PassThrough } from 'node:stream';

/** One server-sent event; `data` is JSON on one line (JSON.stringify never emits a newline). */
export function sseEvent(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line: ignored by EventSource, but it keeps proxies and idle timeouts from closing the connection. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx buffers responses unless told not to; a buffered event stream arrives all at once at the end.
  'x-accel-buffering': 'no',
} as const;

/** A writable event stream that ignores writes once it has ended (a heartbeat may race the end). */
export function createSseStream(): { stream: PassThrough; write(text: string): void; end(): void } {
  const stream = new PassThrough();
  return {
    stream,
    write(text) {
      if (!stream.writableEnded && !stream.destroyed) stream.write(text);
    },
    end() {
      if (!stream.writableEnded) stream.end();
    },
  };
}
