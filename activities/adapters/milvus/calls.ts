import { MilvusClient } from '@zilliz/milvus2-sdk-node';
import { RagError } from '../../../core/errors';
import type { TlsSettings } from '../../../core/tls-settings';

export type MilvusConnection = {
  /** host:port, or an http(s) URL (Milvus / Zilliz Cloud). */
  address: string;
  token?: string | undefined;
  /** MILVUS_TLS*: TLS (a private CA, mTLS) to Milvus distributed or Zilliz Cloud; null or absent: plain. */
  tls?: TlsSettings | null | undefined;
  timeoutSeconds: number;
};

/** The SDK's TLS options: PEM contents (read with the configuration), never paths it would read again. */
const milvusTls = (tls: TlsSettings) => ({
  ssl: true,
  tls: {
    ...(tls.caPem !== undefined ? { rootCert: Buffer.from(tls.caPem) } : {}),
    ...(tls.certPem !== undefined && tls.keyPem !== undefined ? { certChain: Buffer.from(tls.certPem), privateKey: Buffer.from(tls.keyPem) } : {}),
    ...(tls.serverName !== undefined ? { serverName: tls.serverName } : {}),
  },
});

/**
 * A Milvus client with the options ragtime needs (DESIGN §6): the SDK pings every 10 s by default, even with no
 * call in flight, and gRPC servers may answer that with GOAWAY "too_many_pings"; the interval is raised to 10 min
 * and idle pings are off. The SDK connects in its constructor and leaves that promise's rejection unhandled when
 * the server is down, which would end the process; it is observed here, and the first call reports the failure.
 */
export function newMilvusClient({ address, token, tls, timeoutSeconds }: MilvusConnection): MilvusClient {
  const client = new MilvusClient({
    address,
    ...(token !== undefined && token !== '' ? { token } : {}),
    ...(tls ? milvusTls(tls) : {}),
    timeout: Math.round(timeoutSeconds * 1000),
    logLevel: 'error',
    channelOptions: { 'grpc.keepalive_time_ms': 10 * 60_000, 'grpc.keepalive_permit_without_calls': 0 },
  });
  client.connectPromise?.catch(() => undefined);
  return client;
}

type Status = { error_code?: string | number; code?: number; reason?: string };

function statusOf(response: unknown): Status | undefined {
  if (response === null || typeof response !== 'object') return undefined;
  if ('error_code' in response) return response as Status;
  const status = (response as { status?: unknown }).status;
  return status !== null && typeof status === 'object' ? (status as Status) : undefined;
}

const isSuccess = (status: Status) => status.error_code === 'Success' || status.error_code === 0 || status.code === 0;

// gRPC status codes of a server that is down, restarting or too slow: UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED.
const TRANSPORT_CODES = new Set([14, 4, 1]);

/**
 * Runs one Milvus call for `where` (collection @ address). A thrown error or a reply whose status is not Success
 * becomes a RagError naming the operation, the collection, the address and Milvus' reason: SERVICE_UNAVAILABLE for
 * transport failures, INTERNAL for refusals by the server. Both are retryable; retrieval turns them into
 * dense_fallback / failed (spec §6.1).
 */
export async function milvusCall<T>(where: string, operation: string, run: () => Promise<T>): Promise<T> {
  let response: T;
  try {
    response = await run();
  } catch (error) {
    if (error instanceof RagError) throw error;
    const grpcCode = (error as { code?: unknown } | null)?.code;
    const transport = typeof grpcCode === 'number' && TRANSPORT_CODES.has(grpcCode);
    // The SDK dereferences fields of a failed reply (e.g. describing a collection that does not exist).
    const hint = error instanceof TypeError ? ' (the SDK could not read the reply: does the collection exist?)' : '';
    const message = error instanceof Error ? error.message : String(error);
    throw new RagError(transport ? 'SERVICE_UNAVAILABLE' : 'INTERNAL', `Milvus ${operation} on ${where} failed: ${message}${hint}`, {
      cause: error,
    });
  }
  const status = statusOf(response);
  if (status !== undefined && !isSuccess(status)) {
    const reason = status.reason !== undefined && status.reason !== '' ? status.reason : 'no reason given';
    throw new RagError('INTERNAL', `Milvus ${operation} on ${where} failed: ${String(status.error_code)}: ${reason}`);
  }
  return response;
}

/**
 * A double-quoted string literal for a Milvus boolean expression. Milvus' grammar allows no raw line breaks in a
 * literal and gives backslash and the double quote their escape meaning; everything else (single quotes, %, _,
 * any Unicode) stands for itself. Verified on Milvus Lite 3.2.2 with quotes, backslashes and line breaks.
 */
export function quoteForFilter(value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
  return `"${escaped}"`;
}

// Writes per collection, process-wide: Milvus Lite's engine is single-writer per collection (DESIGN §6), and two
// stores of one process may share a collection.
const writeQueues = new Map<string, Promise<unknown>>();

/** Runs `write` after every earlier write queued under `key` has settled. */
export function serialized<T>(key: string, write: () => Promise<T>): Promise<T> {
  const previous = writeQueues.get(key) ?? Promise.resolve();
  const next = previous.then(write, write);
  const settled = next.catch(() => undefined);
  writeQueues.set(key, settled);
  void settled.then(() => {
    if (writeQueues.get(key) === settled) writeQueues.delete(key);
  });
  return next;
}
