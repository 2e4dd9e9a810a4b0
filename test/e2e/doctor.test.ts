/**
 * End to end (issue 24 §3): `ragtime doctor` run as a subprocess (`node bin/ragtime.js doctor`, and `--json`)
 * against the real local services, with a `ragtime worker` subprocess polling a task queue of this file's own and a
 * collection of its own (the worker creates it at start, empty). Models: the offline policy provider, then
 * MODEL_PROVIDER=openai against the scripted OpenAI-compatible server of test/support (on loopback), which answers
 * the probe's `doctor_probe` schema (activities/adapters/openai-chat-models.ts) with `{"ok": true}`; rerank against
 * the loopback reranker of test/support.
 *
 * Exit codes: cli/exit-codes.ts (0 every check passed, 4 one failed).
 */
import { closedPort } from '../support/cli-run';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DoctorReport } from '../../core/schemas/doctor';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';
import { newMilvusClient } from '../support/milvus';
import { LoopbackRerankServer, jsonReply } from '../support/rerank-server';
import { REPO_ROOT, services } from '../support/services';
import { RAGTIME_BIN, assertServicesReachable, serviceEnvironment, startWorkerProcess, stopWorkerProcess, tail } from '../support/worker-process';

jest.setTimeout(60_000);

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `e2e_doctor_${RUN}`;
const QUEUE = `e2e-doctor-${RUN}`;
const API_KEY = `sk-e2e-doctor-${RUN}`;
const RERANK_KEY = `rk-e2e-doctor-${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-e2e-doctor-'));
const extraDirs: string[] = [];
const offlineEnv: NodeJS.ProcessEnv = { ...serviceEnvironment({ collection: COLLECTION, dataDir }), TEMPORAL_TASK_QUEUE: QUEUE, MODEL_PROVIDER: 'offline' };

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs `node bin/ragtime.js doctor …` and resolves when it exits (killed after 40 s: a hang is a failure). */
function doctor(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RAGTIME_BIN, 'doctor', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function doctorJson(env: NodeJS.ProcessEnv): Promise<{ code: number | null; report: DoctorReport }> {
  const run = await doctor(['--json'], env);
  try {
    return { code: run.code, report: DoctorReport.parse(JSON.parse(run.stdout)) };
  } catch {
    throw new Error(`ragtime doctor --json printed no report (exit ${run.code}):\n${tail(run.stdout)}\n${tail(run.stderr)}`);
  }
}

/** The line of a check in the text output (one per kind, but for models). */
const lineOf = (stdout: string, kind: string) => stdout.split('\n').find((line) => new RegExp(`^(ok  |FAIL) ${kind} `).test(line)) ?? `(no ${kind} line in:\n${stdout})`;


let worker: ChildProcess | undefined;
let openAi: FakeOpenAiServer;
let reranker: LoopbackRerankServer;

beforeAll(async () => {
  await assertServicesReachable();
  [openAi, reranker] = await Promise.all([startFakeOpenAiServer({ apiKey: API_KEY }), LoopbackRerankServer.start()]);
  // The worker creates the collection at start, so the doctor finds the default knowledge base, empty.
  ({ child: worker } = await startWorkerProcess(offlineEnv));
}, 60_000);

afterAll(async () => {
  if (worker) await stopWorkerProcess(worker);
  await Promise.all([openAi?.close(), reranker?.close()]);
  const milvus = newMilvusClient();
  await milvus.dropCollection({ collection_name: COLLECTION }).catch(() => undefined);
  await milvus.closeConnection();
  for (const dir of [dataDir, ...extraDirs]) rmSync(dir, { recursive: true, force: true });
});

test('offline provider, every service up: a line per check, all ok, exit 0; --json is the same report', async () => {
  const [text, json] = await Promise.all([doctor([], offlineEnv), doctorJson(offlineEnv)]);
  expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
  expect(lineOf(text.stdout, 'temporal')).toMatch(new RegExp(`^ok   temporal   ${services.temporalAddress} +namespace default \\(\\d+ ms\\)$`));
  expect(lineOf(text.stdout, 'worker')).toMatch(new RegExp(`^ok   worker     task queue ${QUEUE} +1 worker polling \\(`));
  expect(lineOf(text.stdout, 'milvus')).toMatch(new RegExp(`^ok   milvus     ${services.milvusAddress} +\\d+ collections?; default knowledge base ${COLLECTION}: 0 rows \\(`));
  expect(lineOf(text.stdout, 'embeddings')).toContain(`${services.embeddingModel}: one ${services.embeddingDim}-d vector (EMBEDDING_DIM ${services.embeddingDim})`);
  expect(lineOf(text.stdout, 'database')).toMatch(/^ok {3}database {3}SQLite in \S+ +the folder of ragtime\.sqlite and audit\.sqlite is writable \(/);
  expect(lineOf(text.stdout, 'database')).toContain(`SQLite in ${dataDir} `);
  expect(lineOf(text.stdout, 'rerank')).toContain('off: RERANK_MODEL, RERANK_BINDING_HOST, RERANK_API_KEY are not set');
  expect(lineOf(text.stdout, 'model')).toMatch(/^ok {3}model {6}offline-policy v3 \(meaning-v1\) +the offline policy provider calls no chat model; it reads meaning with the embedding model \(MODEL_PROVIDER=offline; docs\/offline-policy\.md\) \(\d+ ms\)$/);
  expect(text.stdout.trim().split('\n').at(-1)).toBe('all 7 checks passed');
  // The settings it used, and where each came from (issue 33 §1): here all from the environment but the defaults.
  expect(text.stdout.split('\n').slice(0, 3)).toEqual([
    `settings (environment > default; no ${dataDir}/settings.env)`,
    expect.stringMatching(new RegExp(`^  TEMPORAL_ADDRESS +${services.temporalAddress} +environment \\(TEMPORAL_ADDRESS=${services.temporalAddress}\\)$`)),
    expect.stringMatching(new RegExp(`^  TEMPORAL_TASK_QUEUE +${QUEUE} +environment \\(TEMPORAL_TASK_QUEUE=${QUEUE}\\)$`)),
  ]);
  expect(text.stdout).toMatch(new RegExp(`^  RAGTIME_KB +${COLLECTION} +environment \\(MILVUS_COLLECTION=${COLLECTION}\\)$`, 'm'));

  expect(json.code).toBe(0);
  expect(json.report.ok).toBe(true);
  expect(json.report.checks.map((check) => [check.kind, check.ok])).toEqual(
    ['temporal', 'worker', 'milvus', 'embeddings', 'database', 'rerank', 'model'].map((kind) => [kind, true]),
  );
});

test('Milvus on a closed port: a FAIL line naming Milvus, the address and the fix; the others still ok; exit 4', async () => {
  const address = `127.0.0.1:${await closedPort()}`;
  const env = { ...offlineEnv, MILVUS_ADDRESS: address };
  const [text, json] = await Promise.all([doctor([], env), doctorJson(env)]);
  expect(text.code).toBe(4);
  expect(lineOf(text.stdout, 'milvus')).toMatch(
    new RegExp(`^FAIL milvus     ${address} +Milvus at ${address} is unreachable \\(connect ECONNREFUSED ${address}\\): start it with \`npx ragtime services up\``),
  );
  expect(text.stdout.trim().split('\n').at(-1)).toBe('1 of 7 checks failed (milvus): see the FAIL lines above');
  expect(json.code).toBe(4);
  expect(json.report.ok).toBe(false);
  expect(json.report.checks.filter((check) => !check.ok).map((check) => check.kind)).toEqual(['milvus']);
});

describe('the data dir\'s settings file (issue 33 §1)', () => {
  /** A data dir of its own holding a settings file, as scripts/services.sh writes one. */
  const dataDirWith = (settings: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-e2e-doctor-settings-'));
    writeFileSync(path.join(dir, 'settings.env'), settings);
    extraDirs.push(dir);
    return dir;
  };
  const milvusPort = () => services.milvusAddress.split(':').at(-1) as string;

  test('the services were started on other ports than this shell reaches: the sources are printed, those checks FAIL, exit 4', async () => {
    // Temporal and the embeddings server of this data dir "were started" on a port where nothing listens; the shell
    // reaches the suite's (another checkout's services, as in the issue). Milvus is where the file says.
    const [temporalPort, embeddingsPort] = [await closedPort(), await closedPort()];
    const dir = dataDirWith(`TEMPORAL_PORT=${temporalPort}\nMILVUS_PORT=${milvusPort()}\nEMBEDDINGS_PORT=${embeddingsPort}\n`);
    const text = await doctor([], { ...offlineEnv, RAGTIME_DATA_DIR: dir });
    expect(text.code).toBe(4);
    expect(text.stdout.split('\n')[0]).toBe(`settings (environment > ${dir}/settings.env > default)`);
    expect(lineOf(text.stdout, 'temporal')).toMatch(
      new RegExp(`^FAIL temporal +${services.temporalAddress} +namespace default, but this shell uses ${services.temporalAddress} \\(environment, TEMPORAL_ADDRESS=${services.temporalAddress}\\) and the local services of this data dir were started on 127\\.0\\.0\\.1:${temporalPort} \\(${dir}/settings\\.env\\): unset TEMPORAL_ADDRESS, TEMPORAL_PORT to use them`),
    );
    expect(lineOf(text.stdout, 'embeddings')).toContain(`were started on http://127.0.0.1:${embeddingsPort}/v1 (${dir}/settings.env)`);
    expect(lineOf(text.stdout, 'milvus')).toMatch(/^ok /);
    expect(text.stdout.trim().split('\n').at(-1)).toBe('2 of 7 checks failed (temporal, embeddings): see the FAIL lines above');
  });

  test('this shell\'s default knowledge base (from the settings file) is not the worker\'s: the worker check FAILs, exit 4', async () => {
    const shellKb = `e2e_doctor_shell_${RUN}`;
    const dir = dataDirWith(`RAGTIME_KB=${shellKb}\n`);
    const { MILVUS_COLLECTION: _kb, ...env } = offlineEnv;
    const text = await doctor([], { ...env, RAGTIME_DATA_DIR: dir });
    expect(text.code).toBe(4);
    expect(text.stdout).toMatch(new RegExp(`^  RAGTIME_KB +${shellKb} +settings file \\(RAGTIME_KB=${shellKb}\\)$`, 'm'));
    expect(lineOf(text.stdout, 'worker')).toMatch(
      new RegExp(`^FAIL worker +task queue ${QUEUE} +a worker's default knowledge base is ${COLLECTION} \\(\\d+@\\S+/kb=${COLLECTION}\\), this shell's is ${shellKb} \\(settings file, RAGTIME_KB=${shellKb}\\): ask would read ${COLLECTION}, search and docs ${shellKb}; export RAGTIME_KB=${COLLECTION} here`),
    );
    expect(text.stdout.trim().split('\n').at(-1)).toBe('1 of 7 checks failed (worker): see the FAIL lines above');
  });
});

describe('MODEL_PROVIDER=openai on the scripted server, rerank on the loopback reranker', () => {
  const openAiEnv = (apiKey: string): NodeJS.ProcessEnv => ({
    ...offlineEnv,
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: openAi.baseUrl,
    OPENAI_API_KEY: apiKey,
    FAST_MODEL: 'e2e-fast',
    GRADE_MODEL: 'e2e-grade',
    RERANK_MODEL: 'e2e-rerank',
    RERANK_BINDING_HOST: reranker.host,
    RERANK_API_KEY: RERANK_KEY,
  });
  const probes = () => openAi.requests.filter((request) => request.schemaName === 'doctor_probe');

  beforeEach(() => {
    openAi.reset();
    reranker.reset();
    openAi.setDefault('doctor_probe', { json: { ok: true } });
    reranker.always(jsonReply({ results: [{ index: 0, relevance_score: 0.5 }] }));
  });

  test('one probe per distinct model (ANSWER_MODEL is GRADE_MODEL), each with its plan; one rerank call; exit 0', async () => {
    const json = await doctorJson(openAiEnv(API_KEY));
    expect(json.code).toBe(0);
    const models = json.report.checks.filter((check) => check.kind === 'model');
    const host = new URL(openAi.baseUrl).host;
    expect(models.map((check) => [check.target, check.ok, check.detail])).toEqual([
      [`e2e-fast @ ${host}`, true, 'answered the probe'],
      [`e2e-grade @ ${host}`, true, 'answered the probe'],
    ]);
    expect(models.map((check) => [check.plan?.model, check.plan?.outputMode, check.plan?.temperature])).toEqual([
      ['e2e-fast', 'json_schema', 0],
      ['e2e-grade', 'json_schema', 0],
    ]);
    expect(probes().map((request) => request.body.model).sort()).toEqual(['e2e-fast', 'e2e-grade']);
    expect(json.report.checks.find((check) => check.kind === 'rerank')).toMatchObject({ ok: true, target: `${reranker.host}/v1/rerank`, detail: 'e2e-rerank: ranked one document (score 0.5)' });
    expect(reranker.requests.map((request) => request.body)).toEqual([{ model: 'e2e-rerank', query: 'ragtime doctor', documents: ['ragtime doctor'], top_n: 1, return_documents: false }]);

    // The text output: each model's plan under its line.
    const text = await doctor([], openAiEnv(API_KEY));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ok {3}model {6}e2e-fast @ \S+ +answered the probe \(\d+ ms\)\n {16}plan \(FAST_MODEL\): e2e-fast: json_schema \(.+\), temperature 0 \(.+\), logprobs untried$/m);
    expect(text.stdout).toMatch(/^ {16}plan \(GRADE_MODEL, ANSWER_MODEL\): e2e-grade: json_schema /m);
  });

  test('MODEL_OUTPUT_MODE and MODEL_TEMPERATURE from the environment: the forced rung and temperature are sent, and said why', async () => {
    const json = await doctorJson({ ...openAiEnv(API_KEY), MODEL_OUTPUT_MODE: 'tools', MODEL_TEMPERATURE: '0.2' });
    expect(json.code).toBe(0);
    const plans = json.report.checks.filter((check) => check.kind === 'model').map((check) => check.plan);
    expect(plans.map((plan) => [plan?.outputMode, plan?.outputReason, plan?.temperature, plan?.temperatureReason])).toEqual([
      ['tools', 'MODEL_OUTPUT_MODE=tools', 0.2, 'MODEL_TEMPERATURE=0.2'],
      ['tools', 'MODEL_OUTPUT_MODE=tools', 0.2, 'MODEL_TEMPERATURE=0.2'],
    ]);
    for (const request of probes()) {
      expect(request.body).toMatchObject({ temperature: 0.2, tool_choice: { type: 'function', function: { name: 'doctor_probe' } } });
      expect(request.body).not.toHaveProperty('response_format');
    }
  });

  test('a key the endpoint and the reranker refuse: FAIL lines for the models and rerank, exit 4, and no key printed', async () => {
    const wrongKey = `sk-wrong-${RUN}`;
    reranker.always({ status: 401, body: JSON.stringify({ detail: 'invalid api key' }) });
    const [text, json] = await Promise.all([doctor([], openAiEnv(wrongKey)), doctorJson(openAiEnv(wrongKey))]);
    expect(text.code).toBe(4);
    expect(json.code).toBe(4);
    expect(json.report.checks.filter((check) => !check.ok).map((check) => check.kind)).toEqual(['rerank', 'model', 'model']);
    expect(lineOf(text.stdout, 'rerank')).toMatch(/^FAIL rerank .* answered HTTP 401: .*: check RERANK_API_KEY/);
    for (const line of text.stdout.split('\n').filter((line) => line.startsWith('FAIL model'))) expect(line).toMatch(/401/);
    for (const output of [text.stdout, text.stderr, JSON.stringify(json.report)]) {
      expect(output).not.toContain(wrongKey);
      expect(output).not.toContain(RERANK_KEY);
    }
  });
});
