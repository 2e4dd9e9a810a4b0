import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT, assertReachable, services } from './services';

/*
 * `ragtime worker` as a subprocess, as a user runs it: for tests that stop it (SIGTERM) or kill it (SIGKILL) and
 * start another. Its output is kept, so a failure can show why it exited.
 */

export const RAGTIME_BIN = path.join(REPO_ROOT, 'bin', 'ragtime.js');

/** The end of a subprocess' output, for failure messages (tsx prints a minified source line before a stack). */
export const tail = (text: string, lines = 20) => text.split('\n').slice(-lines).map((line) => line.slice(0, 300)).join('\n');

/** Variables that would change what the subprocesses do if the developer's shell happens to set them. */
const SCRUBBED = /^(MODEL_PROVIDER|OPENAI_\w+|ARK_API_KEY|BASE_URL|FAST_MODEL|GRADE_MODEL|MODEL|RERANK_\w+|DATABASE_URL|MILVUS_\w+|TEMPORAL_\w+|RETRIEVAL_\w+|AUTO_MERGE_\w+|LEAF_RETRIEVE_LEVEL|RAGTIME_DATA_DIR)$/;

/**
 * The environment of a ragtime subprocess on the local services (test/support/services.ts): the caller's shell
 * without ragtime's settings, then the services, this collection and data dir.
 */
export function serviceEnvironment(where: { collection: string; dataDir: string }): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !SCRUBBED.test(name))),
    TEMPORAL_ADDRESS: services.temporalAddress,
    MILVUS_ADDRESS: services.milvusAddress,
    MILVUS_COLLECTION: where.collection,
    EMBEDDING_BASE_URL: services.embeddingBaseUrl,
    EMBEDDING_MODEL: services.embeddingModel,
    EMBEDDING_DIM: String(services.embeddingDim),
    RAGTIME_DATA_DIR: where.dataDir,
    // Each test's worker serves a task queue of its own: a housekeeping schedule per test would outlive it on the
    // shared dev server. test/integration/housekeeping.test.ts starts a worker with its schedule, and removes it.
    RAGTIME_HOUSEKEEPING: 'false',
  };
}

/** Fails the test file, naming the service, when one of the three services is down. */
export async function assertServicesReachable(): Promise<void> {
  await assertReachable('Temporal', services.temporalAddress);
  await assertReachable('Milvus', services.milvusAddress);
  await assertReachable('embeddings server', services.embeddingBaseUrl);
}

export type WorkerProcess = { child: ChildProcess; output: () => string };

/** Starts `ragtime worker` and resolves once it prints its start-up line (it polls right after). */
export function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RAGTIME_BIN, 'worker'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (/^ragtime worker: task queue/m.test(output)) resolve({ child, output: () => output });
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`ragtime worker exited (${code}) before polling:\n${tail(output)}`)));
  });
}

/** SIGTERM (the worker drains), then SIGKILL after 10 s. */
export async function stopWorkerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** SIGKILL: no drain, no goodbye to the server — the worker just stops existing. Resolves once it is gone. */
export async function killWorkerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** `ragtime ingest samples/knowledge --json` with `env`, asynchronously (servers of the test keep running); its totals. */
export function ingestSampleKnowledge(env: NodeJS.ProcessEnv): Promise<{ status: number | null; totals: Record<string, number> | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RAGTIME_BIN, 'ingest', 'samples/knowledge', '--json'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (status) => {
      let totals: Record<string, number> | null = null;
      try {
        totals = (JSON.parse(stdout) as { totals?: Record<string, number> }).totals ?? null;
      } catch {
        totals = null;
      }
      resolve({ status, totals, output: tail(`${stdout}\n${stderr}`) });
    });
  });
}
