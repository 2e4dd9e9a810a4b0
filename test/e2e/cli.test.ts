/**
 * End to end (issue 5 §5): the `ragtime` CLI against the real local services. Most commands run in this process
 * (runRagtimeInProcess: bin/main.ts's run, the code bin/ragtime.js calls), and one per surface as a subprocess
 * (`node bin/ragtime.js …`, ragtimeProcess): the sample ingest, a question read as a person reads it, and the exit
 * statuses of refused input (issue 31: a subprocess costs a Node start and a tsx compile, 1–3 s here). Two worker subprocesses for the whole file, each on a task queue of its own and sharing one Milvus
 * collection and one parent store (a temp RAGTIME_DATA_DIR): one with the offline policy provider, one with
 * MODEL_PROVIDER=openai against the scripted OpenAI-compatible server of test/support (in this process, on loopback).
 * The sample knowledge base is ingested once through `ragtime ingest`.
 *
 * Expected routes: docs/offline-policy.md on samples/knowledge (the questions of `make demo`, scripts/demo.ts).
 * Exit codes: cli/exit-codes.ts (0 completed, 2 invalid input, 3 awaiting input, 4 unreachable service).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EvalReport } from '../../core/eval/report';
import type { RetrievalResult } from '../../core/trace/writers';
import type { RagOutcome } from '../../core/schemas/run-io';
import { RunComparison } from '../../core/schemas/run-comparison';
import { hashToken } from '../../server/http/token-auth';
import { closedPort, runRagtime, runRagtimeInProcess, type CliRun } from '../support/cli-run';
import { CountingEmbeddingProxy } from '../support/embedding-proxy';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';
import { newMilvusClient } from '../support/milvus';
import { startServeProcess } from '../support/serve-process';
import { REPO_ROOT, pollUntil, services } from '../support/services';
import { assertServicesReachable, serviceEnvironment, startWorkerProcess, stopWorkerProcess, tail } from '../support/worker-process';

jest.setTimeout(60_000);

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `e2e_cli_${RUN}`;
const SESSION = `e2e-cli-${RUN}`;
const OFFLINE_QUEUE = `e2e-cli-offline-${RUN}`;
const OPENAI_QUEUE = `e2e-cli-openai-${RUN}`;
const API_KEY = `sk-e2e-${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-e2e-cli-'));

const baseEnv: NodeJS.ProcessEnv = { ...serviceEnvironment({ collection: COLLECTION, dataDir }), TEMPORAL_UI_PORT: '8233' };
const offlineEnv: NodeJS.ProcessEnv = { ...baseEnv, TEMPORAL_TASK_QUEUE: OFFLINE_QUEUE, MODEL_PROVIDER: 'offline' };
let openAiEnv: NodeJS.ProcessEnv;

type Run = CliRun;


/** Runs `ragtime …` in this process with the offline worker's settings unless told otherwise. */
const ragtime = (args: string[], env: NodeJS.ProcessEnv = offlineEnv): Promise<Run> => runRagtimeInProcess(args, env);

/** Runs `node bin/ragtime.js …` as a subprocess: once per surface. */
const ragtimeProcess = (args: string[], env: NodeJS.ProcessEnv = offlineEnv): Promise<Run> => runRagtime(args, env, 90_000);

/** `ragtime <args> --json`: the parsed stdout, with the exit code (stderr shown when stdout is not JSON). */
async function ragtimeJson<T>(args: string[], env?: NodeJS.ProcessEnv, runner = ragtime): Promise<{ code: number | null; json: T }> {
  const run = await runner([...args, '--json'], env);
  try {
    return { code: run.code, json: JSON.parse(run.stdout) as T };
  } catch {
    throw new Error(`ragtime ${args.join(' ')} printed no JSON (exit ${run.code}):\n${tail(run.stdout)}\n${tail(run.stderr)}`);
  }
}

const ask = (question: string, env?: NodeJS.ProcessEnv, session = SESSION) => ragtimeJson<RagOutcome>(['ask', question, '--session', session], env);
/**
 * A session of its own: "这款产品" names no product only in a conversation's first turn; later in SESSION it would be
 * read as the product talked about before (issue 25 §1).
 */
const firstTurnSession = (name: string) => `${SESSION}-${name}`;

const workers: ChildProcess[] = [];
/** What each worker printed, by task queue. */
const workerOutput = new Map<string, () => string>();

/** Starts `ragtime worker` (test/support/worker-process.ts); stopped in afterAll. */
async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const { child, output } = await startWorkerProcess(env);
  workers.push(child);
  workerOutput.set(env.TEMPORAL_TASK_QUEUE ?? '', output);
  return child;
}

const stopWorker = stopWorkerProcess;


let server: FakeOpenAiServer;

beforeAll(async () => {
  await assertServicesReachable();
  server = await startFakeOpenAiServer({ apiKey: API_KEY });
  openAiEnv = {
    ...baseEnv,
    TEMPORAL_TASK_QUEUE: OPENAI_QUEUE,
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: server.baseUrl,
    OPENAI_API_KEY: API_KEY,
    FAST_MODEL: 'e2e-fast',
    GRADE_MODEL: 'e2e-grade',
  };
  // The offline worker creates the collection at start-up; the openai one starts after it (two creating the same
  // collection at once could race) while the sample knowledge base is ingested.
  await startWorker(offlineEnv);
  const [, ingest] = await Promise.all([
    startWorker(openAiEnv),
    ragtimeJson<{ totals: { files: number; ingested: number; failed: number } }>(['ingest', 'samples/knowledge'], offlineEnv, ragtimeProcess),
  ]);
  expect(ingest).toMatchObject({ code: 0, json: { totals: { files: 4, ingested: 4, failed: 0 } } });
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map(stopWorker));
  await server?.close();
  const milvus = newMilvusClient();
  await milvus.dropCollection({ collection_name: COLLECTION }).catch(() => undefined);
  await milvus.closeConnection();
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

describe('offline policy provider: one run per route (exit 0 completed, 3 awaiting input)', () => {
  test('answer', async () => {
    const { code, json } = await ask('Aurora X2 路由器的保修期是多久？');
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: 'completed', route: 'answer', retrieval_status: 'answerable', sessionId: SESSION, error: null, hitl: null });
    expect(json.docs[0]?.filename).toBe('Aurora X2 路由器.md');
    // The answer node (issue 11): the offline answerer quotes the evidence, so its answer verifies.
    expect(json.answer?.text).toContain('2 年保修');
    expect(json.answer?.verification.status).toBe('verified');
    expect(json.answer?.citations[0]).toMatchObject({ filename: 'Aurora X2 路由器.md', doc_index: 1 });
  });

  test('answer as a person reads it: the answer first, its sources, then the path and why', async () => {
    const run = await ragtimeProcess(['ask', 'Aurora X2 路由器的保修期是多久？', '--session', SESSION]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toContain('2 年保修');
    expect(lines[0]).toMatch(/\[1\]/);
    expect(run.stdout).toMatch(/Sources\n {2}\[1\] Aurora X2 路由器\.md, p\.1 — "[^"]*2 年保修/);
    // Issue 33 §6: what "verified" means, with the grade's confidence beside it (offline-policy v3's P(answers):
    // 0.97 measured on 2026-12-05).
    expect(run.stdout).toMatch(/citations verified \(every quote matches its source; this does not prove the answer right\) · grade confidence (0\.9\d|1\.00)/);
    expect(run.stdout.indexOf('Sources')).toBeLessThan(run.stdout.indexOf('COMPLETED  route=answer'));
    expect(run.stdout).toMatch(/why {2}relevance strong, answerability sufficient/);
    const id = /run (rag-\S+)/.exec(run.stdout)?.[1] as string;
    const trace = await ragtime(['trace', id]);
    expect(trace.stdout).toMatch(/answer: \d+ chars, \d+ citation\(s\), verified; offline-policy v3 \(meaning-v\d+\) extractive, answer-v1, \d+ ms/);
  });

  test('answer, in English', async () => {
    const { code, json } = await ask('What is new in Orbit CLI 2.1?');
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: 'completed', route: 'answer' });
    expect(json.docs[0]?.filename).toBe('Orbit CLI release notes.md');
  });

  test('rewrite (step-back), then clarify once the rewrite is spent', async () => {
    const { code, json } = await ask('丹瑾的护盾技能冷却时间是多少？');
    expect(code).toBe(3);
    expect(json).toMatchObject({ status: 'awaiting_input', route: 'clarify', retrieval_status: 'needs_clarification' });
    expect(json.rag_trace).toMatchObject({ rewrite_method: 'step_back', retrieval_stage: 'rewritten' });
    expect(json.hitl_resume_state).toMatchObject({ rewrite_count: 1 });

    // The readable trace shows the route path.
    const trace = await ragtime(['trace', json.workflowId]);
    expect(trace.code).toBe(0);
    expect(trace.stdout).toContain('path simple → rewrite (step-back) → clarify (waiting)');
    expect(trace.stdout).toContain('rewrite step_back:');
  });

  // offline-policy v3 (issue 42): the fitted decision reads P(answers) 0.30 here, below rewriteAt, so no rewrite is
  // tried (v2 rewrote once on the missing name first); a name no evidence holds never ends in a question back.
  test('a name the evidence never holds (Mesh): no_knowledge, not a clarification', async () => {
    const { code, json } = await ask('Aurora X2 支持 Mesh 组网吗？');
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: 'completed', route: 'no_knowledge', retrieval_status: 'no_knowledge' });
    expect(json.rag_trace?.evidence_reason).toMatch(/^offline: the evidence (does not answer|never names "mesh"); P\(answers\)=0\.\d+ by meaning-v1/);
  });

  test('clarify: one HITL round through ask --json and answer --json; ask without --session is a conversation of its own', async () => {
    // Issue 33 §2: two questions without --session are two conversations. Before, both joined the session "cli", and
    // "这款产品" was read as the Aurora X2 of the question before it (answered, not asked back).
    const before = await ragtimeJson<RagOutcome>(['ask', 'Aurora X2 路由器的保修期是多久？']);
    const asked = await ragtimeJson<RagOutcome>(['ask', '这款产品的价格是多少？']);
    expect(before.json.sessionId).toMatch(/^ask-[0-9a-f]{12}$/);
    expect(asked.json.sessionId).toMatch(/^ask-[0-9a-f]{12}$/);
    expect(asked.json.sessionId).not.toBe(before.json.sessionId);
    expect(asked.json.conversation).toMatchObject({ turnsBefore: 0 });
    expect(asked.code).toBe(3);
    expect(asked.json).toMatchObject({ status: 'awaiting_input', route: 'clarify', hitl: { round: 1, options: [] } });
    expect(asked.json.hitl?.prompt).toContain('产品型号');
    expect(asked.json.rag_trace?.missing_slots).toEqual(['产品型号']);

    const answered = await ragtimeJson<RagOutcome>(['answer', asked.json.workflowId, 'Aurora X2']);
    expect(answered.code).toBe(0);
    expect(answered.json).toMatchObject({ workflowId: asked.json.workflowId, status: 'completed', route: 'answer', hitl: null });
    expect(answered.json.rounds).toMatchObject([{ round: 1, route: 'clarify', answer: 'Aurora X2', answered_via: 'update', outcome: 'answered' }]);
    expect(answered.json.docs[0]?.filename).toBe('Aurora X2 路由器.md');

    const trace = await ragtime(['trace', asked.json.workflowId]);
    expect(trace.stdout).toContain('path simple → clarify ← "Aurora X2" → answer');
    expect(trace.stdout).toContain('round 1: clarify');

    // A finished run takes no more answers: usage error, nothing changes.
    const again = await ragtime(['answer', asked.json.workflowId, 'Nimbus C1']);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toMatch(/^ragtime: NOT_AWAITING_INPUT: run "rag-ask-[0-9a-f]{12}-[0-9a-f]{8}" has finished/);
  });

  test('scope_select: options from the competing documents; a picked option answers', async () => {
    const asked = await ask('怎么重置管理密码？');
    expect(asked.code).toBe(3);
    expect(asked.json).toMatchObject({ status: 'awaiting_input', route: 'scope_select', retrieval_status: 'needs_scope_selection' });
    const options = asked.json.hitl?.options ?? [];
    expect([...options].sort()).toEqual(['Aurora X2 路由器用户手册', 'Nimbus C1 摄像头用户手册']);
    // A number that names no option is refused with the list, and nothing is sent (issue 14 §9)…
    const outOfRange = await ragtime(['answer', asked.json.workflowId, '9']);
    expect(outOfRange.code).toBe(2);
    expect(outOfRange.stderr).toContain(`ragtime: INVALID_INPUT: option 9 does not exist: the run offers 1. ${options[0]}; 2. ${options[1]}; nothing was sent`);
    // …and one that does picks that option.
    const answered = await ragtimeJson<RagOutcome>(['answer', asked.json.workflowId, String(options.indexOf('Nimbus C1 摄像头用户手册') + 1)]);
    expect(answered.code).toBe(0);
    expect(answered.json).toMatchObject({ status: 'completed', route: 'answer' });
    expect(answered.json.docs[0]?.filename).toBe('Nimbus C1 摄像头.md');
    expect(answered.json.rounds[0]).toMatchObject({ answer: 'Nimbus C1 摄像头用户手册', outcome: 'answered' });
  });

  test('no_knowledge', async () => {
    const { code, json } = await ask('量子计算机的散热怎么做？');
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: 'completed', route: 'no_knowledge', retrieval_status: 'no_knowledge', docs: [] });
    expect([json.answer, json.answer_null_reason]).toEqual([null, 'route_not_answer']);
    // A person reads a sentence, in the question's language (spec §8.3's text for Chinese).
    const run = await ragtime(['ask', '量子计算机的散热怎么做？', '--session', SESSION]);
    expect(run.stdout.split('\n')[0]).toBe('知识库中没有找到可靠的相关信息，暂时无法基于知识库回答这个问题。');
    const english = await ragtime(['ask', 'How do quantum computers stay cool?', '--session', SESSION]);
    expect(english.stdout.split('\n')[0]).toBe('The knowledge base has no reliable information on this question, so it cannot be answered from it.');
  });

  test('complex: a comparison split into two sub-questions, then synthesis', async () => {
    const { code, json } = await ask('比较 Aurora X2 与 Nimbus C1 的保修期');
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: 'completed', route: 'answer' });
    expect(json.rag_trace).toMatchObject({ complexity: 'complex', sub_questions: ['Aurora X2的保修期', 'Nimbus C1的保修期'], retrieval_stage: 'synthesis' });
    expect(json.rag_trace?.sub_traces?.map((sub) => sub.route)).toEqual(['answer', 'answer']);
    expect(json.docs.map((doc) => doc.filename)).toEqual(expect.arrayContaining(['Aurora X2 路由器.md', 'Nimbus C1 摄像头.md']));
    // Its sub-question children have a view of their own (issue 14 §11).
    const sub = await ragtime(['trace', `${json.workflowId}/sub-1`]);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain(`sub-question ${json.workflowId}/sub-1  completed`);
    expect(sub.stdout).toMatch(/route=answer {2}status=answerable/);
  });

  test('runs --session lists the runs of the session (Temporal visibility)', async () => {
    const ids = await pollUntil('the session runs in visibility', async () => {
      const { code, json } = await ragtimeJson<Array<{ workflowId: string; session: string; status: string }>>(['runs', '--session', SESSION]);
      expect(code).toBe(0);
      return json.length >= 7 && json.every((row) => row.status !== 'running') ? json : undefined;
    });
    expect(new Set(ids.map((row) => row.session))).toEqual(new Set([SESSION]));
    expect(ids.filter((row) => row.status === 'awaiting_input')).toHaveLength(1); // the rewrite run, left waiting
    const readable = await ragtime(['runs', '--session', SESSION, '--status', 'awaiting_input']);
    expect(readable.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^STARTED +STATUS +ROUTE +SESSION +RUN$/),
      expect.stringMatching(/awaiting_input +clarify +e2e-cli-\w+ +rag-e2e-cli-\w+-\w+$/),
    ]);
  });
});

describe('knowledge bases and documents (issue 12): kb list|create|stats|drop, docs list|rm, --kb, --id, --prefix', () => {
  const OTHER = `e2e_cli_other_${RUN}`;
  const folder = path.join(dataDir, 'guides');
  afterAll(async () => {
    const milvus = newMilvusClient();
    await milvus.dropCollection({ collection_name: OTHER }).catch(() => undefined);
    await milvus.closeConnection();
  });

  test('the sample knowledge base: kb list names it as the default; docs list holds the samples by path', async () => {
    const list = await ragtimeJson<Array<{ kb: string; documents: number; default: boolean }>>(['kb', 'list']);
    expect(list.json).toEqual(expect.arrayContaining([expect.objectContaining({ kb: COLLECTION, documents: 4, default: true })]));
    const docs = await ragtimeJson<Array<{ doc_id: string; filename: string }>>(['docs', 'list']);
    expect(docs.json.map((doc) => doc.doc_id)).toEqual(expect.arrayContaining(['samples/knowledge/Aurora X2 路由器.md', 'samples/knowledge/Orbit CLI release notes.md']));
  });

  test('create a knowledge base, ingest a folder into it with --prefix, ask in it, remove a document, drop it', async () => {
    mkdirSync(path.join(folder, 'a'), { recursive: true });
    mkdirSync(path.join(folder, 'b'), { recursive: true });
    writeFileSync(path.join(folder, 'a', 'README.md'), 'Kestrel devices ship with a five-year warranty.');
    writeFileSync(path.join(folder, 'b', 'README.md'), 'Kestrel devices are charged over USB-C.');
    expect((await ragtime(['kb', 'create', OTHER])).stdout).toContain(`created knowledge base ${OTHER}`);
    const ingested = await ragtimeJson<{ workflowId: string; kb: string; files: Array<{ doc_id: string; status: string }> }>(['ingest', folder, '--kb', OTHER, '--prefix', 'guides/']);
    expect(ingested.code).toBe(0);
    expect(ingested.json.kb).toBe(OTHER);
    // The batch has a view too (issue 14 §11).
    const batch = await ragtime(['trace', ingested.json.workflowId]);
    expect([batch.code, batch.stdout.split('\n')[0]]).toEqual([0, `ingest batch ${ingested.json.workflowId}  completed`]);
    expect(batch.stdout).toContain('2/2 file(s) ingested');
    expect(ingested.json.files.map((file) => [file.doc_id, file.status])).toEqual([
      ['guides/a/README.md', 'ingested'],
      ['guides/b/README.md', 'ingested'],
    ]);
    const stats = await ragtimeJson<{ documents: number; chunks: { l3: number } }>(['kb', 'stats', OTHER]);
    expect(stats.json).toMatchObject({ documents: 2, chunks: { l3: 2 } });
    // Ingested again, unchanged: each leaf keeps its vector (issue 17 §4); --reembed embeds them again.
    const again = await ragtime(['ingest', folder, '--kb', OTHER, '--prefix', 'guides/']);
    expect([again.code, again.stdout]).toEqual([0, expect.stringMatching(/ok +guides\/a\/README\.md +L1 1 +L2 1 +L3 1 \(1 vectors kept\)/)]);
    const reembedded = await ragtime(['ingest', folder, '--kb', OTHER, '--prefix', 'guides/', '--reembed']);
    expect([reembedded.code, reembedded.stdout.includes('vectors kept')]).toEqual([0, false]);
    expect((await ragtimeJson<{ documents: number; chunks: { l3: number } }>(['kb', 'stats', OTHER])).json).toMatchObject({ documents: 2, chunks: { l3: 2 } });
    const asked = await ask('Kestrel warranty five years?', { ...offlineEnv });
    expect(asked.json.kb).toBe(COLLECTION); // the default knowledge base does not hold it
    const inOther = await ragtimeJson<RagOutcome>(['ask', 'Kestrel devices warranty five-year', '--session', SESSION, '--kb', OTHER]);
    expect(inOther.json.kb).toBe(OTHER);
    expect(inOther.json.docs.map((doc) => doc.doc_id)).toContain('guides/a/README.md');
    const removed = await ragtime(['docs', 'rm', 'guides/a/README.md', '--kb', OTHER]);
    expect(removed.stdout).toContain('removed document guides/a/README.md');
    const left = await ragtimeJson<Array<{ doc_id: string }>>(['docs', 'list', '--kb', OTHER]);
    expect(left.json.map((doc) => doc.doc_id)).toEqual(['guides/b/README.md']);
    // Without a terminal, drop needs --yes; nothing is dropped before.
    const refused = await ragtime(['kb', 'drop', OTHER]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pass --yes/);
    expect((await ragtime(['kb', 'drop', OTHER, '--yes'])).stdout).toContain(`dropped knowledge base ${OTHER} (1 document(s), 1 leaves)`);
  });

  test('errors: an unknown knowledge base is UNKNOWN_KB listing those that exist (exit 2), never "Milvus is down"; --id takes one file', async () => {
    const search = await ragtime(['search', '保修期', '--kb', 'no_such_kb']);
    expect(search.code).toBe(2);
    expect(search.stderr).toMatch(/^ragtime: UNKNOWN_KB: knowledge base "no_such_kb" does not exist \(the knowledge bases are: .*e2e_cli_/);
    const docs = await ragtime(['docs', 'list', '--kb', 'no_such_kb']);
    expect([docs.code, /UNKNOWN_KB/.test(docs.stderr)]).toEqual([2, true]);
    const badName = await ragtime(['ask', 'q?', '--kb', 'bad-name']);
    expect(badName.code).toBe(2);
    // ask, chat and ingest refuse it the same way, before anything starts (issue 33 §5): no run in the session.
    const unknownSession = `unknown-kb-${RUN}`;
    for (const args of [
      ['ask', '保修期多久？', '--session', unknownSession, '--kb', 'no_such_kb'],
      ['chat', '--session', unknownSession, '--kb', 'no_such_kb'],
      ['ingest', 'samples/knowledge', '--kb', 'no_such_kb'],
    ]) {
      const refused = await ragtime(args);
      expect([args[0], refused.code, refused.stderr]).toEqual([args[0], 2, expect.stringMatching(/^ragtime: UNKNOWN_KB: knowledge base "no_such_kb" does not exist/)]);
    }
    expect((await ragtimeJson<unknown[]>(['runs', '--session', unknownSession, '--json'])).json).toEqual([]);
    const twoWithId = await ragtime(['ingest', 'samples/knowledge', '--id', 'x']);
    expect(twoWithId.code).toBe(2);
    expect(twoWithId.stderr).toContain('--id names one document');
    // A file named outright that no loader reads is refused before a batch starts, as a missing one (issue 45 §3).
    const unsupported = await ragtime(['ingest', 'samples/knowledge', 'package.json']);
    expect([unsupported.code, unsupported.stdout, unsupported.stderr]).toEqual([
      2,
      '',
      'ragtime: UNSUPPORTED_FILE: package.json: unsupported file type ".json"; supported: .docx, .htm, .html, .markdown, .md, .pdf, .txt\n',
    ]);
  });
});

describe('issue 45 §3 RAGTIME_TENANT (make demo records its console\'s): the CLI\'s runs are that tenant\'s', () => {
  const TOKENS = { acme: `e2e-cli-acme-${RUN}`, globex: `e2e-cli-globex-${RUN}` };

  test('ask: acme\'s token opens the run and its turn, globex\'s gets NOT_FOUND; a session globex owns is refused, exit 2, nothing started', async () => {
    const acmeShell = { ...offlineEnv, RAGTIME_TENANT: 'acme' };
    const session = firstTurnSession('tenant-acme');
    const { code, json } = await ask('Aurora X2 路由器的保修期是多久？', acmeShell, session);
    expect([code, json.status, json.route]).toEqual([0, 'completed', 'answer']);
    // The API of the same data dir (its session owners and turns: audit.sqlite), as the demo's console reads them.
    const serve = await startServeProcess({ ...offlineEnv, RAGTIME_API_TOKENS: `acme:${hashToken(TOKENS.acme)},globex:${hashToken(TOKENS.globex)}` });
    try {
      const get = (tenant: keyof typeof TOKENS, route: string) => fetch(`${serve.url}${route}`, { headers: { authorization: `Bearer ${TOKENS[tenant]}` } });
      expect((await get('acme', `/api/runs/${json.workflowId}`)).status).toBe(200);
      const turns = (await (await get('acme', `/api/sessions/${session}/turns`)).json()) as { turns: Array<{ workflowId: string }> };
      expect(turns.turns.map((turn) => turn.workflowId)).toEqual([json.workflowId]);
      const foreign = await get('globex', `/api/runs/${json.workflowId}`);
      expect([foreign.status, ((await foreign.json()) as { error: string }).error]).toEqual([404, 'NOT_FOUND']);
      // globex starts a conversation over the API; acme's shell may not continue it.
      const globexSession = firstTurnSession('tenant-globex');
      const started = await fetch(`${serve.url}/api/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.globex}`, 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Aurora X2 路由器的保修期是多久？', sessionId: globexSession }),
      });
      expect([200, 202]).toContain(started.status); // answered, or still running after the API's wait
      const refused = await ragtime(['ask', 'Nimbus C1 摄像头的保修期是多久？', '--session', globexSession], acmeShell);
      expect([refused.code, refused.stderr]).toEqual([2, expect.stringMatching(/^ragtime: INVALID_INPUT: session "[^"]+" belongs to another tenant than RAGTIME_TENANT "acme"; nothing was started/)]);
      expect((await ragtimeJson<unknown[]>(['runs', '--session', globexSession, '--json'])).json).toHaveLength(1);
    } finally {
      serve.child.kill('SIGTERM');
    }
  });
});

describe('ragtime eval (issue 13): the harness on the committed golden set samples/golden/products', () => {
  const KB = `e2e_eval_${RUN}`;
  const out = path.join(dataDir, 'eval-products');
  type EvalJson = {
    summary: EvalReport['summary'];
    files: { json: string; md: string; html: string };
    comparison: { regressions: Array<{ id: string }>; improvements: Array<{ id: string }> } | null;
  };
  afterAll(async () => {
    await ragtime(['kb', 'drop', KB, '--yes']);
  });

  test('ingests the set into its knowledge base, asks every question through the workflows, writes the three reports', async () => {
    const run = await ragtime(['eval', 'samples/golden/products', '--kb', KB, '--out', out, '--json']);
    expect(run.code).toBe(0);
    const { summary, files } = JSON.parse(run.stdout) as EvalJson;
    expect(run.stderr).toContain(`ingesting 4 of 4 document(s) into ${KB}`);
    expect(summary.n).toBe(10);
    // Expected routes of the offline policy on this set (docs/offline-policy.md): every question right.
    expect(summary.routes).toMatchObject({ accuracy: 1, answerable_answered: 1, unanswerable_not_answered: 1 });
    expect(summary.routes.confusion).toEqual({ answer: { answer: 5 }, clarify: { clarify: 1 }, scope_select: { scope_select: 1 }, no_answer: expect.any(Object) });
    expect(summary.retrieval.final.hit1).toBe(1);
    expect([summary.answers.answered, summary.answers.contains_gold, summary.answers.verified]).toEqual([5, 1, 1]);
    const report = JSON.parse(readFileSync(files.json, 'utf8')) as EvalReport;
    expect(report.questions.map((q) => q.workflow_id)).toEqual(report.questions.map(() => expect.stringMatching(/^rag-eval-/)));
    expect(readFileSync(files.md, 'utf8')).toContain('# Evaluation: products');
    const html = readFileSync(files.html, 'utf8');
    expect(html).toContain('route accuracy');
    expect(html).toContain('<svg role="img" aria-label="questions kept at each stage"');
  }, 180_000);

  test('a second run reuses the knowledge base; --compare lists a regression and exits 1 beyond --max-regressions', async () => {
    // The same documents, two questions: one whose gold answer the documents do not say (so this run gets it wrong).
    const set = path.join(dataDir, 'golden-compare');
    cpSync(path.join(REPO_ROOT, 'samples', 'golden', 'products', 'docs'), path.join(set, 'docs'), { recursive: true });
    const questions = [
      { id: 'warranty-aurora', question: 'Aurora X2 路由器的保修期是多久？', answerable: true, gold_doc_ids: ['Aurora X2 路由器.md'], gold_answers: ['5 年保修'] },
      { id: 'absent-quantum', question: '量子计算机的散热怎么做？', answerable: false },
    ];
    writeFileSync(path.join(set, 'questions.jsonl'), questions.map((q) => JSON.stringify(q)).join('\n'));
    const first = await ragtime(['eval', set, '--kb', KB, '--out', path.join(dataDir, 'eval-compare-1')]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`reusing knowledge base ${KB}`);
    expect(first.stdout).toContain('lost at  answer 1');
    // The earlier report, doctored: the question this run gets wrong was right then.
    const before = JSON.parse(readFileSync(path.join(dataDir, 'eval-compare-1', 'report.json'), 'utf8')) as EvalReport;
    const doctored = path.join(dataDir, 'doctored-report.json');
    before.questions = before.questions.map((q) => (q.id === 'warranty-aurora' ? { ...q, answer_contains_gold: true, attribution: null } : q));
    writeFileSync(doctored, JSON.stringify(before));
    const compared = await ragtime(['eval', set, '--kb', KB, '--out', path.join(dataDir, 'eval-compare-2'), '--compare', doctored]);
    expect(compared.code).toBe(1);
    expect(compared.stdout).toContain('1 regression(s), 0 improvement(s)');
    expect(compared.stdout).toContain('regression warranty-aurora: answer → answer (answer)');
    const tolerated = await ragtime(['eval', set, '--kb', KB, '--out', path.join(dataDir, 'eval-compare-3'), '--compare', doctored, '--max-regressions', '1']);
    expect(tolerated.code).toBe(0);
    const badSet = await ragtime(['eval', path.join(dataDir, 'no-such-set')]);
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toContain('is not a golden set: it has no questions.jsonl');
  }, 300_000);
});

describe('other commands', () => {
  test('search --json: docs, the 26-key retrieval meta and the diagnostics', async () => {
    const { code, json } = await ragtimeJson<RetrievalResult>(['search', 'Aurora X2 保修期']);
    expect(code).toBe(0);
    expect(json.docs[0]?.filename).toBe('Aurora X2 路由器.md');
    expect(Object.keys(json.meta)).toHaveLength(26);
    expect(json.meta).toMatchObject({ retrieval_mode: 'hybrid', retrieval_top_k: 8, candidate_k: 24 });
    expect(json.diagnostics).toMatchObject({ embedding_error: null, legs: { dense: expect.any(Array), bm25: expect.any(Array) } });
    expect(json.diagnostics?.fused.length).toBeGreaterThan(0);
  });

  test('trace --diff A B: what changed from a no_knowledge run to an answered one; --json is the RunComparison', async () => {
    const session = `${SESSION}-diff`;
    const [before, after] = [
      await ragtimeJson<RagOutcome>(['ask', '量子计算机的散热怎么做？', '--session', session]),
      await ragtimeJson<RagOutcome>(['ask', 'Aurora X2 路由器的保修期是多久？', '--session', session]),
    ];
    const [a, b] = [before.json.workflowId, after.json.workflowId];
    const text = await ragtime(['trace', '--diff', a, b]);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([`DIFF  ${a}  →  ${b}`, '  question  a "量子计算机的散热怎么做？"', '            b "Aurora X2 路由器的保修期是多久？"']);
    expect(text.stdout).toContain('  outcome   completed no_knowledge  →  completed answer');
    expect(text.stdout).toMatch(/ {2}path b {4}question → \S.* → answer\n/);
    expect(text.stdout).toMatch(/\n {4}route +no_knowledge → answer\n/);
    expect(text.stdout).toMatch(/\n {2}evidence\n {4}\+ .*\(Aurora X2 路由器\.md\) at 1\n/);
    expect(text.stdout).toMatch(/\n {2}timings\n {4}total +\d+ ms → \d+ ms/);
    const { code, json } = await ragtimeJson<RunComparison>(['trace', '--diff', a, b]);
    expect(code).toBe(0);
    expect(RunComparison.parse(json)).toMatchObject({ sameQuestion: false, changed: true, routeChanged: true, a: { workflowId: a, route: 'no_knowledge' }, b: { workflowId: b, route: 'answer' } });
    expect(json.ranks.length).toBeGreaterThan(0); // the two questions recall different candidates
    const same = await ragtime(['trace', '--diff', b, b]);
    expect(same.stdout.trim().split('\n').at(-1)).toBe('  no change in route, outcome, grades, evidence or ranks');
    const one = await ragtime(['trace', '--diff', a]);
    expect([one.code, one.stderr]).toEqual([2, expect.stringContaining('trace --diff needs two runs')]);
  });
});

describe('errors: one line naming the problem and the fix', () => {
  test('invalid input exits 2 before connecting to anything', async () => {
    const unreachable = { ...offlineEnv, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    for (const [args, message] of [
      [['runs', '--status', 'bogus'], '--status bogus is not one of running, awaiting_input, completed, failed'],
      [['runs', '--limit', 'abc'], '--limit abc is not a whole number from 1 to 1000'],
      [['runs', '--limit', '0'], '--limit 0 is not a whole number from 1 to 1000'],
    ] as const) {
      const refused = await ragtimeProcess([...args], unreachable);
      expect([refused.code, refused.stderr.trim()]).toEqual([2, `ragtime: INVALID_INPUT: ${message}`]);
    }
    const badSession = await ragtime(['ask', 'Aurora X2 保修期？', '--session', 'a b'], unreachable);
    expect([badSession.code, badSession.stderr]).toEqual([2, expect.stringMatching(/^ragtime: INVALID_INPUT: invalid --session: ✖ sessionId may hold/)]);
    const run = await ragtime(['ask', '   ', '--json'], unreachable);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toMatchInlineSnapshot(`"ragtime: INVALID_INPUT: invalid question: ✖ question is empty after trimming → at question"`);
    // Text no embedder reads (issue 14 §7): refused the same way, before anything starts.
    for (const [question, why] of [['\u200b\u200d', 'no visible character'], ['Aurora\u0007保修期', 'control character']] as const) {
      const refused = await ragtime(['ask', question, '--json'], { ...offlineEnv, TEMPORAL_ADDRESS: '127.0.0.1:1' });
      expect([refused.code, refused.stderr.includes(why)]).toEqual([2, true]);
    }
  });

  test('Temporal unreachable exits 4, naming it and how to start it', async () => {
    const port = await closedPort();
    const run = await ragtime(['ask', 'Aurora X2 路由器的保修期是多久？', '--json'], { ...offlineEnv, TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(run.code).toBe(4);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^ragtime: SERVICE_UNAVAILABLE: cannot reach Temporal at 127\\.0\\.0\\.1:${port}: .*; start it with \`make up\`$`))]);
  });

  test('no worker on the task queue exits 4, naming the task queue and how to start a worker', async () => {
    const run = await ragtime(['ask', 'Aurora X2 路由器的保修期是多久？', '--json'], { ...offlineEnv, TEMPORAL_TASK_QUEUE: `e2e-cli-nobody-${RUN}` });
    expect(run.code).toBe(4);
    expect(run.stderr.trim()).toBe(
      `ragtime: SERVICE_UNAVAILABLE: no ragtime worker polls task queue "e2e-cli-nobody-${RUN}" on ${services.temporalAddress}; ` +
        'start one with `npx ragtime worker` (`make demo` runs one in the background)',
    );
  });

  test('embeddings server down during a question (issue 14 §2): route no_knowledge as the spec says, but degraded, exit 4', async () => {
    // A worker whose embeddings server dies after it started: it polls, and every query embedding then fails.
    const proxy = await CountingEmbeddingProxy.start(services.embeddingBaseUrl);
    const env = { ...offlineEnv, TEMPORAL_TASK_QUEUE: `e2e-cli-noembed-${RUN}`, EMBEDDING_BASE_URL: proxy.baseUrl };
    const worker = await startWorker(env);
    try {
      await proxy.close();
      const { code, json } = await ask('Aurora X2 路由器的保修期是多久？', env);
      expect(code).toBe(4);
      expect(json).toMatchObject({ status: 'completed', route: 'no_knowledge', docs: [], rag_trace: { retrieval_mode: 'failed', rerank_error: 'embedding_failed' } });
      expect(json.degraded).toEqual({ component: 'embeddings', reason: expect.stringMatching(/connect|ECONNREFUSED|Connection error/i), retrieval: 'initial', retrievals: 1, of: 1 });
      const text = await ragtime(['ask', 'Aurora X2 路由器的保修期是多久？', '--session', SESSION], env);
      expect(text.code).toBe(4);
      expect(text.stdout).toMatch(/^ {2}DEGRADED the knowledge base could not be read \(every retrieval\): the embeddings server failed: /m);
    } finally {
      await stopWorker(worker);
    }
  }, 90_000);

  test('Milvus unreachable: search exits 4, naming Milvus and how to start it', async () => {
    const port = await closedPort();
    const run = await ragtime(['search', 'Aurora X2 保修期'], { ...offlineEnv, MILVUS_ADDRESS: `127.0.0.1:${port}` });
    expect(run.code).toBe(4);
    expect(run.stderr.trim()).toMatch(new RegExp(`^ragtime: SERVICE_UNAVAILABLE: retrieval failed, cannot use Milvus at 127\\.0\\.0\\.1:${port} \\(knowledge base ${COLLECTION}\\): .*; start the local services with \`make up\``));
  });
});

describe('MODEL_PROVIDER=openai against the scripted OpenAI-compatible server', () => {
  const ANSWER_GRADE = { json: { relevance: 'strong', answerability: 'sufficient', ambiguity: 'none', route: 'answer', confidence: 0.9, reason: '证据充分' } };
  beforeEach(() => {
    server.reset();
    // The planner sees only what the fast path misses; a rewrite would be a bug here, so none is scripted.
    server.setDefault('complexity_result', { json: { complexity: 'simple', reason: '单一问题', sub_questions: [] } });
    server.setDefault('answer_draft', { json: { answer: '见手册[1]。', citations: [{ marker: 1, doc_index: 1, quote: '保修' }] } });
  });

  test('answer: the grader model decides, with the configured model and key; the answer model writes', async () => {
    server.enqueue('evidence_grade', ANSWER_GRADE);
    server.enqueue('answer_draft', { json: { answer: 'Aurora X2 保修 2 年[1]。', citations: [{ marker: 1, doc_index: 1, quote: 'Aurora X2 路由器提供 2 年保修' }] } });
    const { code, json } = await ask('Aurora X2 路由器的保修期是多久？', openAiEnv);
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: 'completed', route: 'answer', retrieval_status: 'answerable' });
    // ANSWER_MODEL is unset: GRADE_MODEL writes the answer.
    expect(json.answer).toMatchObject({ text: 'Aurora X2 保修 2 年[1]。', model: 'e2e-grade', verification: { status: 'verified' }, repair_attempted: false });
    const drafts = server.requests.filter((request) => request.schemaName === 'answer_draft');
    expect(drafts.map((request) => request.body.model)).toEqual(['e2e-grade']);
    expect(JSON.stringify(drafts[0]?.body.messages)).toContain('[1] Aurora X2 路由器.md (Page 0)');
    expect(json.rag_trace).toMatchObject({ evidence_confidence: 0.9, evidence_reason: '证据充分' });
    const grades = server.requests.filter((request) => request.schemaName === 'evidence_grade');
    expect(grades.map((request) => [request.body.model, request.authorization])).toEqual([['e2e-grade', `Bearer ${API_KEY}`]]);
    expect(JSON.stringify(grades[0]?.body.messages)).toContain('Aurora X2 路由器的保修期是多久？');
  });

  test('clarify: the model asks back; ask --json then answer --json', async () => {
    server.enqueue('evidence_grade', {
      json: { relevance: 'weak', answerability: 'partial', ambiguity: 'missing_slot', route: 'clarify', confidence: 0.4, missing_slots: ['产品型号'], hitl_prompt: '请问是哪一款产品？', hitl_options: [], reason: '缺少产品型号' },
    }, ANSWER_GRADE);
    const asked = await ask('这款产品的价格是多少？', openAiEnv, firstTurnSession('clarify-openai'));
    expect(asked.code).toBe(3);
    expect(asked.json).toMatchObject({ status: 'awaiting_input', route: 'clarify', hitl: { prompt: '请问是哪一款产品？', round: 1 } });

    const answered = await ragtimeJson<RagOutcome>(['answer', asked.json.workflowId, 'Aurora X2'], openAiEnv);
    expect(answered.code).toBe(0);
    expect(answered.json).toMatchObject({ status: 'completed', route: 'answer', rounds: [{ answer: 'Aurora X2', outcome: 'answered' }] });
    expect(server.requests.filter((request) => request.schemaName === 'evidence_grade')).toHaveLength(2);
  });
});

test("the openai worker's start-up line has an output line per model: its rung and temperature, and why (issue 24)", () => {
  const output = workerOutput.get(OPENAI_QUEUE)?.() ?? '';
  expect(output).toMatch(/^ {2}output: {6}FAST_MODEL e2e-fast: json_schema \(auto: the top rung until the endpoint refuses it\), temperature 0 \(the spec's 0, MODEL_TEMPERATURE unset\), logprobs untried$/m);
  expect(output).toMatch(/^ {2}output: {6}GRADE_MODEL, ANSWER_MODEL e2e-grade: json_schema /m);
  // Issue 33 §5: the model endpoint, checked at start-up (a TCP connection, no model call).
  expect(output).toMatch(/^ {2}endpoint: {4}http:\/\/127\.0\.0\.1:\d+ reachable \(\d+ ms\)$/m);
});
