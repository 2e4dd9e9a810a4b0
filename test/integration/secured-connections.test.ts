/**
 * Secured connections (issue 18 §1): the Temporal dev server, Milvus Lite and PostgreSQL serve no TLS here, so each sits behind a
 * TLS-terminating proxy on loopback with a CA made by the test (test/support/tls-proxy.ts). A `ragtime worker` and
 * `ragtime ask` subprocess, configured only through TEMPORAL_TLS_* as a user would, run a question through mTLS;
 * a wrong CA and a missing client certificate are refused with messages that say so. Milvus is reached through
 * its own TLS proxy with MILVUS_TLS_CA, the way the worker's knowledge store connects; PostgreSQL through one with
 * DATABASE_URL's sslmode=verify-full (direct TLS negotiation, which a plain TLS front door can carry).
 */
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../runtime/load-config';
import { newMilvusClient as newRagtimeMilvusClient } from '../../activities/adapters/milvus/calls';
import { dropTestCollection } from '../support/milvus';
import { makeTestPki, type TestPki } from '../support/tls-certificates';
import { startTlsProxy, type TlsProxy } from '../support/tls-proxy';
import { REPO_ROOT, assertReachable, services } from '../support/services';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { RAGTIME_BIN, assertServicesReachable, serviceEnvironment, startWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../support/worker-process';

jest.setTimeout(120_000);

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `it_tls_${RUN}`;
const TASK_QUEUE = `it-tls-${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-it-tls-'));

let pki: TestPki;
let temporalProxy: TlsProxy;
let milvusProxy: TlsProxy;
let postgresProxy: TlsProxy;
let worker: WorkerProcess | undefined;

/** The subprocess environment: the local services, Temporal through the mTLS proxy. */
const securedEnv = (overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...serviceEnvironment({ collection: COLLECTION, dataDir }),
  TEMPORAL_ADDRESS: temporalProxy.address,
  TEMPORAL_TASK_QUEUE: TASK_QUEUE,
  TEMPORAL_TLS_CA: pki.ca,
  TEMPORAL_TLS_CERT: pki.clientCert,
  TEMPORAL_TLS_KEY: pki.clientKey,
  TEMPORAL_TLS_SERVER_NAME: 'localhost',
  MODEL_PROVIDER: 'offline',
  ...overrides,
});

/** A CLI subprocess, asynchronously: the proxies live in this process's event loop, which must keep running. */
function ragtime(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RAGTIME_BIN, ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  await assertServicesReachable();
  pki = makeTestPki();
  temporalProxy = await startTlsProxy({ target: services.temporalAddress, cert: pki.serverCert, key: pki.serverKey, clientCa: pki.ca });
  milvusProxy = await startTlsProxy({ target: services.milvusAddress, cert: pki.serverCert, key: pki.serverKey });
  const postgres = new URL(services.testDatabaseUrl);
  await assertReachable('PostgreSQL', `${postgres.hostname}:${postgres.port || '5432'}`);
  postgresProxy = await startTlsProxy({ target: `${postgres.hostname}:${postgres.port || '5432'}`, cert: pki.serverCert, key: pki.serverKey, alpn: ['postgresql'] });
}, 60_000);

afterAll(async () => {
  if (worker) await stopWorkerProcess(worker.child);
  await temporalProxy?.close();
  await milvusProxy?.close();
  await postgresProxy?.close();
  await dropTestCollection(COLLECTION);
  pki?.remove();
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

test('mTLS with a private CA: a worker and `ragtime ask` reach Temporal only through TLS, and the run completes', async () => {
  worker = await startWorkerProcess(securedEnv());
  expect(worker.output()).toMatch(/identity: +\d+@\S+; connection mTLS, CA \S+ca\.pem, server name localhost/);
  const asked = await ragtime(['ask', '退货政策是什么？', '--json'], securedEnv());
  expect(asked.stderr).toBe('');
  const outcome = JSON.parse(asked.stdout) as { status: string; workflowId: string };
  expect(outcome.status).toBe('completed');
  // The proxy saw the worker's and the client's handshakes and refused none of them.
  expect(temporalProxy.refusals).toEqual([]);
});

test('a wrong CA: the client refuses the server with a message that names the certificate problem and the CA file', async () => {
  const asked = await ragtime(['ask', '退货政策是什么？'], securedEnv({ TEMPORAL_TLS_CA: pki.wrongCa }));
  expect(asked.status).toBe(4);
  expect(asked.stderr).toMatch(/certificate/i);
  expect(asked.stderr).toContain(pki.wrongCa);
  expect(asked.stderr).not.toMatch(/\n\s+at /); // one explained line, no stack
});

test('no client certificate at an mTLS endpoint: refused, and the message says the server wants one', async () => {
  const asked = await ragtime(['ask', '退货政策是什么？'], securedEnv({ TEMPORAL_TLS_CERT: '', TEMPORAL_TLS_KEY: '' }));
  expect(asked.status).toBe(4);
  expect(asked.stderr).toMatch(/client certificate/i);
  expect(temporalProxy.refusals.join('\n')).toMatch(/certificate/i);
});

test('configuration errors are reported before connecting: a key without a certificate, a missing file', async () => {
  const keyOnly = await ragtime(['ask', 'x'], securedEnv({ TEMPORAL_TLS_CERT: '' }));
  expect(keyOnly.status).toBe(2);
  expect(keyOnly.stderr).toContain('TEMPORAL_TLS_KEY is set without TEMPORAL_TLS_CERT');
  const missing = await ragtime(['ask', 'x'], securedEnv({ TEMPORAL_TLS_CA: path.join(pki.dir, 'nope.pem') }));
  expect(missing.status).toBe(2);
  expect(missing.stderr).toContain(`TEMPORAL_TLS_CA=${path.join(pki.dir, 'nope.pem')}: no such file`);
});

test('Milvus behind TLS: the knowledge store connects with MILVUS_TLS_CA, and refuses a server its CA did not sign', async () => {
  const config = (ca: string) =>
    loadConfig({ MILVUS_ADDRESS: milvusProxy.address, MILVUS_TLS_CA: ca, MILVUS_TLS_SERVER_NAME: 'localhost', MODEL_PROVIDER: 'offline' }).milvus;
  const trusted = newRagtimeMilvusClient({ ...config(pki.ca), timeoutSeconds: 10 });
  try {
    const listed = await trusted.listCollections();
    expect(listed.status.error_code).toBe('Success');
  } finally {
    await trusted.closeConnection();
  }
  const untrusted = newRagtimeMilvusClient({ ...config(pki.wrongCa), timeoutSeconds: 5 });
  try {
    await expect(untrusted.listCollections()).rejects.toThrow();
  } finally {
    await untrusted.closeConnection().catch(() => undefined);
  }
  // The client hung up during the handshake: it did not trust the server's certificate.
  expect(milvusProxy.refusals.length).toBeGreaterThan(0);
});

test('PostgreSQL behind TLS: DATABASE_URL sslmode=verify-full with the CA reaches the audit store; a wrong CA is refused', async () => {
  const url = (ca: string) => {
    const target = new URL(services.testDatabaseUrl);
    target.host = postgresProxy.address;
    target.search = new URLSearchParams({ sslmode: 'verify-full', sslrootcert: ca, sslnegotiation: 'direct' }).toString();
    return loadConfig({ DATABASE_URL: target.toString(), MODEL_PROVIDER: 'offline' }).database.url;
  };
  const trusted = createAuditStore({ databaseUrl: url(pki.ca), sqliteFile: ':memory:', includeContent: false });
  try {
    await trusted.migrate();
    expect(await trusted.sessionTrace(`tls-${RUN}`)).toMatchObject({ toolInvocations: [], events: [] });
    expect(postgresProxy.accepted()).toBeGreaterThan(0); // through the TLS front door, not around it
  } finally {
    await trusted.close();
  }
  const untrusted = createAuditStore({ databaseUrl: url(pki.wrongCa), sqliteFile: ':memory:', includeContent: false });
  try {
    await expect(untrusted.sessionTrace(`tls-${RUN}`)).rejects.toThrow(/self[- ]signed|certificate/i);
  } finally {
    await untrusted.close().catch(() => undefined);
  }
});
