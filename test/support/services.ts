/**
 * Addresses of the local services that tests talk to (started by `scripts/services.sh up`, i.e. `make up` /
 * `make test`). One place that reads them from the environment, with the same defaults as scripts/env.sh.
 *
 * A test that needs a service calls `assertReachable` in `beforeAll`: when the service is down the whole file
 * fails with a message naming the service and its address. Nothing is skipped.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import * as net from 'node:net';
import * as path from 'node:path';
import { localAddress } from '../../core/settings/local-settings';

export interface ServiceAddresses {
  /** Temporal frontend gRPC, host:port. */
  temporalAddress: string;
  /** Milvus (Lite) gRPC, host:port. */
  milvusAddress: string;
  /** OpenAI-compatible embeddings base URL, ending in /v1. */
  embeddingBaseUrl: string;
  embeddingModel: string;
  embeddingDim: number;
  /** PostgreSQL database for the SQL stores' tests (scripts/env.sh TEST_DATABASE_URL; the server of POSTGRES_PORT). */
  testDatabaseUrl: string;
}

export const DEFAULT_SERVICE_ADDRESSES: ServiceAddresses = {
  temporalAddress: '127.0.0.1:7233',
  milvusAddress: '127.0.0.1:19530',
  embeddingBaseUrl: 'http://127.0.0.1:8765/v1',
  embeddingModel: 'multilingual-e5-small-q4',
  embeddingDim: 384,
  testDatabaseUrl: 'postgres://postgres@127.0.0.1:5433/ragtime_test',
};

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

const fromPort = (port: string | undefined, address: (port: string) => string) => {
  const set = nonEmpty(port);
  return set === undefined ? undefined : address(set);
};

export function readServiceAddresses(env: NodeJS.ProcessEnv = process.env): ServiceAddresses {
  const dimText = nonEmpty(env.EMBEDDING_DIM);
  const embeddingDim = dimText === undefined ? DEFAULT_SERVICE_ADDRESSES.embeddingDim : Number(dimText);
  if (!Number.isInteger(embeddingDim) || embeddingDim <= 0) {
    throw new Error(`EMBEDDING_DIM must be a positive integer, got ${JSON.stringify(dimText)}`);
  }
  return {
    // From the *_PORT variables when the address itself is unset, as scripts/env.sh and parseConfig derive them.
    temporalAddress: nonEmpty(env.TEMPORAL_ADDRESS) ?? fromPort(env.TEMPORAL_PORT, localAddress.temporal) ?? DEFAULT_SERVICE_ADDRESSES.temporalAddress,
    milvusAddress: nonEmpty(env.MILVUS_ADDRESS) ?? fromPort(env.MILVUS_PORT, (port) => localAddress.milvus(port)) ?? DEFAULT_SERVICE_ADDRESSES.milvusAddress,
    embeddingBaseUrl: (nonEmpty(env.EMBEDDING_BASE_URL) ?? fromPort(env.EMBEDDINGS_PORT, localAddress.embeddings) ?? DEFAULT_SERVICE_ADDRESSES.embeddingBaseUrl).replace(/\/+$/, ''),
    embeddingModel: nonEmpty(env.EMBEDDING_MODEL) ?? DEFAULT_SERVICE_ADDRESSES.embeddingModel,
    embeddingDim,
    testDatabaseUrl:
      nonEmpty(env.TEST_DATABASE_URL) ??
      (nonEmpty(env.POSTGRES_PORT) ? `postgres://postgres@127.0.0.1:${nonEmpty(env.POSTGRES_PORT)}/ragtime_test` : DEFAULT_SERVICE_ADDRESSES.testDatabaseUrl),
  };
}

export const services: ServiceAddresses = readServiceAddresses();

/** Repository root (test/support/ is two levels below it). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface HostPort {
  host: string;
  port: number;
}

/** Parses "host:port", "[::1]:port" or a URL ("http://host:port/..."). */
export function parseHostPort(address: string): HostPort {
  if (/^[a-z]+:\/\//i.test(address)) {
    const url = new URL(address);
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
  }
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address);
  if (match === null || match[1] === undefined || match[2] === undefined) {
    throw new Error(`not a host:port address: ${JSON.stringify(address)}`);
  }
  return { host: match[1], port: Number(match[2]) };
}

/** Resolves when a TCP connection to `address` succeeds within `timeoutMs`; rejects with a clear message otherwise. */
export async function assertReachable(serviceName: string, address: string, timeoutMs = 3_000): Promise<void> {
  const { host, port } = parseHostPort(address);
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const fail = (why: string): void => {
      socket.destroy();
      reject(
        new Error(
          `${serviceName} is not reachable at ${address} (${why}). Start the local services with ` +
            '`make up` (scripts/services.sh up) or run the suite with `make test`.',
        ),
      );
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs} ms`));
    socket.once('error', (err) => fail(err.message));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
  });
}

/**
 * What scripts/services.sh needs to act on the same servers the tests talk to: the ports derived from the service
 * addresses above and the data dir of RAGTIME_DATA_DIR (see servicesDataDir), where it finds their pid files.
 */
export function servicesScriptEnvironment(): NodeJS.ProcessEnv {
  return {
    TEMPORAL_PORT: String(parseHostPort(services.temporalAddress).port),
    MILVUS_PORT: String(parseHostPort(services.milvusAddress).port),
    EMBEDDINGS_PORT: String(parseHostPort(services.embeddingBaseUrl).port),
    // Where the script finds the services' pid files: the data dir they were started with.
    RAGTIME_DATA_DIR: servicesDataDir(),
  };
}

/**
 * Runs `scripts/services.sh <args...>` (e.g. `['restart', 'milvus']`) with servicesScriptEnvironment, so the script
 * acts on the same servers the tests talk to.
 */
export async function runServicesScript(args: string[], timeoutMs = 120_000): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...servicesScriptEnvironment() };
  const script = path.join(REPO_ROOT, 'scripts', 'services.sh');
  return new Promise<string>((resolve, reject) => {
    execFile('bash', [script, ...args], { env, timeout: timeoutMs, cwd: REPO_ROOT }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`scripts/services.sh ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
        return;
      }
      resolve(`${stdout}${stderr}`);
    });
  });
}

/** Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 20_000, intervalMs = 250 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The data dir scripts/services.sh keeps its pid files in (RAGTIME_DATA_DIR, default <repo>/.data, as scripts/env.sh). */
export function servicesDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(REPO_ROOT, nonEmpty(env.RAGTIME_DATA_DIR) ?? '.data');
}

/**
 * Stops a local service with scripts/services.sh, runs `during`, and starts the service again, also when `during`
 * throws; resolves to what `during` returned once the service answers again. Other suites may share the service:
 * keep `during` short. Before stopping anything it checks that the pid file under RAGTIME_DATA_DIR names the
 * process listening on the port the tests use, so that it never stops another server (or none at all) by mistake:
 * run the tests with the RAGTIME_DATA_DIR the services were started with.
 */
export async function withServiceStopped<T>(service: 'milvus' | 'embeddings', during: () => Promise<T>): Promise<T> {
  const address = service === 'milvus' ? services.milvusAddress : services.embeddingBaseUrl;
  const { port } = parseHostPort(address);
  const dataDir = servicesDataDir();
  const pidFile = path.join(dataDir, 'run', `${service}.pid`);
  let commandLine = '';
  try {
    const pid = (await readFile(pidFile, 'utf8')).trim();
    commandLine = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
  } catch {
    // reported below
  }
  if (!new RegExp(`--port ${port}( |$)`).test(commandLine)) {
    throw new Error(
      `cannot stop ${service} at ${address}: ${pidFile} does not name a running ${service} on port ${port} ` +
        `(${commandLine === '' ? 'no such process' : `it runs: ${commandLine}`}). Run the tests with ` +
        'RAGTIME_DATA_DIR set to the data dir the services were started with (scripts/services.sh, scripts/env.sh).',
    );
  }
  try {
    await runServicesScript(['down', service]);
    return await during();
  } finally {
    await runServicesScript(['up', service]);
  }
}
