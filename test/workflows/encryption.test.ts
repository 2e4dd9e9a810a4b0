import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ENCODING_ENCRYPTED } from '../../client/codec/aes-gcm-codec';
import { ragtimeDataConverter } from '../../client/codec/data-converter';
import { RagClient } from '../../client/rag-client';
import type { CodecKeyring } from '../../core/codec-keys';
import { isRagError, RagError } from '../../core/errors';
import { TEST_CODEC_KEY_1, TEST_CODEC_KEY_2, TEST_KEYRING, testKeyring } from '../support/codec-keys';
import { startPrivateDevServer, type PrivateDevServer } from '../support/private-dev-server';
import { chunk, grade, plannerResult } from '../support/scenario';
import { createWorker, newTaskQueue, openWorkflowEnv, scriptedAdapters, sessionId, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * Payload encryption end to end (issue 6 §3, docs/SECURITY.md): what the server stores, a worker and a client
 * whose keys differ (a typed error, not a hang), a key rotation in the middle of a run, and the dev server's
 * SQLite file holding no plaintext question, chunk text or answer.
 */

const K1_ONLY = testKeyring(TEST_CODEC_KEY_1);
const K2_ONLY = testKeyring(TEST_CODEC_KEY_2);
const K2_THEN_K1 = testKeyring(TEST_CODEC_KEY_2, TEST_CODEC_KEY_1);

/** A run with distinctive text everywhere content can go: the question, a chunk, a clarification and its answer. */
function markedRun(tag: string) {
  const question = `What is zebra-quartz-${tag}? 紫晶独角兽${tag}的属性是什么？`;
  const evidence = `chunk-text-${tag}: 独角兽${tag}是虚数属性角色。`;
  const answer = `answer-${tag} 翡翠${tag}`;
  const script: AdapterScript = {
    planner: plannerResult('simple', 'one fact', []),
    // The first retrieval is for the question, the second for q* (the answer prepended, spec §4.11.1).
    retrieve: (query) => ({ docs: [chunk(query.startsWith(answer) ? `${evidence} (again)` : evidence)], meta: { retrieval_mode: 'hybrid' } as never }),
    grades: {},
  };
  // What a model's unreadable reply looks like in a failure message (issue 14 §6): quoted, so it names content.
  const failure = `reply-text-${tag} 琥珀${tag}`;
  return { question, evidence, answer, script, failure, markers: [`zebra-quartz-${tag}`, `紫晶独角兽${tag}`, `chunk-text-${tag}`, `独角兽${tag}是虚数`, `answer-${tag}`, `翡翠${tag}`] };
}

/** Grades keyed by the exact question text the grader sees: clarify first, then answer after the person's reply. */
function withGrades(run: ReturnType<typeof markedRun>): AdapterScript {
  const qStar = `${run.answer}：${run.question}`;
  return {
    ...run.script,
    grades: {
      [run.question]: [grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: 'which one?', hitl_options: [] })],
      [qStar]: [grade('strong', 'sufficient', 'none', 'answer', 0.95)],
    },
  };
}

const clientWith = (env: WorkflowEnv, keyring: CodecKeyring | null, taskQueue: string) =>
  RagClient.fromClient(new Client({ connection: env.client.connection, dataConverter: ragtimeDataConverter(keyring) }), taskQueue);

async function ragErrorOf(call: Promise<unknown>): Promise<RagError> {
  const error = await call.then(() => null, (caught: unknown) => caught);
  if (!isRagError(error)) throw new Error(`expected a RagError, got ${String(error)}`);
  return error;
}

/**
 * Every payload of a history that goes through the data converter: inputs, results, memo, summaries, update
 * requests and outcomes. Not search attributes (the server indexes them, so Temporal never encodes them; ragtime's
 * hold session id, status, route, complexity and rounds) nor the SDK's patch markers (the patch id), nor the `data`
 * detail of a local-activity marker (the audit's recordAudit), which the SDK's core writes itself: sequence number,
 * attempt, activity id and type, and times. The marker's `result` detail is the activity's result, and is sealed.
 */
function payloadsOf(value: unknown, found: temporal.api.common.v1.IPayload[] = []): temporal.api.common.v1.IPayload[] {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  const record = value as Record<string, unknown>;
  const markerName = (record as { markerName?: string }).markerName;
  if (markerName === 'core_patch') return found;
  if (markerName === 'core_local_activity') {
    const { data: _sdkMetadata, ...rest } = (record as { details?: Record<string, unknown> }).details ?? {};
    return payloadsOf(rest, found);
  }
  if ('metadata' in record && 'data' in record && record.metadata && typeof record.metadata === 'object') found.push(record as temporal.api.common.v1.IPayload);
  else for (const [key, child] of Object.entries(record)) if (key !== 'searchAttributes') payloadsOf(child, found);
  return found;
}

describe('on the shared dev server', () => {
  let env: WorkflowEnv;
  beforeAll(async () => {
    env = await openWorkflowEnv();
  }, 120_000);
  afterAll(async () => env?.close());
  const terminate = (workflowId: string) => env.client.workflow.getHandle(workflowId).terminate('test cleanup').catch(() => undefined);

  test('every payload of a run\'s history is sealed with the test key; none is readable', async () => {
    const run = markedRun('hist');
    const adapters = scriptedAdapters(withGrades(run));
    const taskQueue = newTaskQueue();
    const worker = await createWorker(env, adapters, taskQueue);
    const rag = RagClient.fromClient(env.client, taskQueue);
    const history = await worker.runUntil(async () => {
      const first = await rag.ask(run.question, { sessionId: sessionId() });
      expect(first.status).toBe('awaiting_input');
      const last = await rag.answer(first.workflowId, run.answer);
      expect(last).toMatchObject({ status: 'completed', route: 'answer' });
      expect(JSON.stringify(last)).toContain(run.evidence); // the client reads everything back decrypted
      return env.client.workflow.getHandle(first.workflowId).fetchHistory();
    });
    const payloads = payloadsOf(history.events);
    expect(payloads.length).toBeGreaterThan(10);
    for (const payload of payloads) {
      expect(Buffer.from(payload.metadata?.encoding ?? []).toString()).toBe(ENCODING_ENCRYPTED);
      expect(Buffer.from(payload.metadata?.['encryption-key-id'] ?? []).toString()).toBe('test-k1');
    }
    const bytes = Buffer.from(JSON.stringify(history));
    for (const marker of run.markers) expect(bytes.includes(Buffer.from(marker))).toBe(false);
  });

  test('a worker without the client\'s key: ask fails with CODEC_KEY_UNKNOWN naming the key, not a hang', async () => {
    const run = markedRun('mismatch-a');
    const taskQueue = newTaskQueue();
    const worker = await createWorker(env, scriptedAdapters(withGrades(run)), taskQueue, { dataConverter: ragtimeDataConverter(K1_ONLY) });
    const workflowId = `rag-mismatch-a-${taskQueue.slice(-8)}`;
    const started = Date.now();
    const error = await worker.runUntil(ragErrorOf(clientWith(env, K2_ONLY, taskQueue).ask(run.question, { sessionId: sessionId(), workflowId })));
    await terminate(workflowId); // it would stay open, its workflow task failing, on the shared server
    // The server refuses the update once the worker has failed the first workflow task a few times (~20 s).
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(error.code).toBe('CODEC_KEY_UNKNOWN');
    // The worker's own report ("… encrypted with key test-k2, which this process does not hold") is sealed with its
    // key test-k1 (failure messages are encoded too), which this client lacks: it says what it can see.
    expect(error.message).toMatch(/^the worker cannot run "rag-mismatch-a-[\w-]+" and this client cannot read why: a payload is encrypted with key "test-k1", which this client does not hold \(active key "test-k2"\).*; the worker and this client hold different codec keys$/);
  }, 60_000);

  test('a client without the worker\'s key: the outcome is refused at once with CODEC_KEY_UNKNOWN', async () => {
    const run = markedRun('mismatch-b');
    const taskQueue = newTaskQueue();
    // The worker has rotated to k2 (and still reads k1); this client only has k1.
    const worker = await createWorker(env, scriptedAdapters(withGrades(run)), taskQueue, { dataConverter: ragtimeDataConverter(K2_THEN_K1) });
    const workflowId = `rag-mismatch-b-${taskQueue.slice(-8)}`;
    const started = Date.now();
    const error = await worker.runUntil(ragErrorOf(clientWith(env, K1_ONLY, taskQueue).ask(run.question, { sessionId: sessionId(), workflowId })));
    await terminate(workflowId); // the run itself went on to ask its question; nobody will answer it
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(error.code).toBe('CODEC_KEY_UNKNOWN');
    expect(error.message).toContain('a payload is encrypted with key "test-k2", which this process does not hold (active key "test-k1")');
  }, 30_000);

  test('rotation mid-run: asked under k1, answered after workers and client rotate to k2; old and new payloads read', async () => {
    const run = markedRun('rotate');
    const adapters = scriptedAdapters(withGrades(run));
    const taskQueue = newTaskQueue();
    const before = await createWorker(env, adapters, taskQueue, { dataConverter: ragtimeDataConverter(K1_ONLY) });
    const first = await before.runUntil(clientWith(env, K1_ONLY, taskQueue).ask(run.question, { sessionId: sessionId() }));
    expect(first.status).toBe('awaiting_input');
    const after = await createWorker(env, adapters, taskQueue, { dataConverter: ragtimeDataConverter(K2_THEN_K1) });
    const rotated = clientWith(env, K2_THEN_K1, taskQueue);
    const last = await after.runUntil(rotated.answer(first.workflowId, run.answer));
    expect(last).toMatchObject({ status: 'completed', route: 'answer' });
    const ids = new Set(payloadsOf((await rotated.temporal.workflow.getHandle(first.workflowId).fetchHistory()).events).map((p) => Buffer.from(p.metadata?.['encryption-key-id'] ?? []).toString()));
    expect(ids).toEqual(new Set(['test-k1', 'test-k2']));
  });

  test('runs sealed with a key this client lacks still list (issue 14 §10); a terminated run shows terminated', async () => {
    const [run, other] = [markedRun('list-a'), markedRun('list-b')];
    const script = { ...withGrades(run), grades: { ...withGrades(run).grades, ...withGrades(other).grades } };
    const taskQueue = newTaskQueue();
    const session = sessionId();
    const worker = await createWorker(env, scriptedAdapters(script), taskQueue, { dataConverter: ragtimeDataConverter(K2_ONLY) });
    const sealed = clientWith(env, K2_ONLY, taskQueue);
    // One after the other: a session holds one run waiting for its person at a time.
    const [stopped, waiting] = await worker.runUntil(async () => {
      const first = await sealed.ask(run.question, { sessionId: session });
      await env.client.workflow.getHandle(first.workflowId).terminate('issue 14 §10: closed from outside');
      return [first, await sealed.ask(other.question, { sessionId: session })] as const;
    });
    expect([stopped.status, waiting.status]).toEqual(['awaiting_input', 'awaiting_input']);
    const reader = clientWith(env, K1_ONLY, taskQueue); // holds neither the run's key nor any way to read its memo
    const rowsOf = (status?: string) => reader.listRuns({ session, limit: 10, ...(status ? { status } : {}) });
    // Visibility catches up with the terminate asynchronously.
    let rows = await rowsOf();
    for (let tries = 0; tries < 50 && rows.find((row) => row.workflowId === stopped.workflowId)?.status !== 'terminated'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      rows = await rowsOf();
    }
    expect(rows.map((row) => [row.workflowId, row.status, row.session]).sort()).toEqual(
      [[waiting.workflowId, 'awaiting_input', session], [stopped.workflowId, 'terminated', session]].sort(),
    );
    expect((await rowsOf('awaiting_input')).map((row) => row.workflowId)).toEqual([waiting.workflowId]);
    await terminate(waiting.workflowId);
  }, 60_000);
});

describe('at rest: the dev server\'s SQLite file', () => {
  let dir: string;
  let server: PrivateDevServer | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-at-rest-'));
    server = await startPrivateDevServer(dir);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('holds no plaintext question, chunk text, answer or failure message of an encrypted run (a plain run\'s text is found)', async () => {
    const env = await openWorkflowEnv({ address: server!.address, codec: TEST_KEYRING });
    const sealed = markedRun('sealed');
    // The control: the same run without a codec, so the search below is shown to find history text when it is there.
    const plain = markedRun('plain');
    try {
      for (const [run, keyring] of [[sealed, TEST_KEYRING], [plain, null]] as const) {
        const taskQueue = newTaskQueue();
        // The answer writer's reply is unreadable: the activity fails with a message quoting it (answer_failed).
        const unreadable = () => new RagError('MODEL_OUTPUT_INVALID', `the answer model's reply is not JSON: "${run.failure}"`);
        const script = { ...withGrades(run), answers: Array.from({ length: 6 }, unreadable) };
        const worker = await createWorker(env, scriptedAdapters(script), taskQueue, { dataConverter: ragtimeDataConverter(keyring) });
        const rag = clientWith(env, keyring, taskQueue);
        await worker.runUntil(async () => {
          const first = await rag.ask(run.question, { sessionId: sessionId() });
          const last = await rag.answer(first.workflowId, run.answer);
          expect(last).toMatchObject({ status: 'completed', answer_null_reason: 'answer_failed', answer_error: expect.objectContaining({ message: expect.stringContaining(run.failure) }) });
        });
      }
    } finally {
      await env.close();
    }
    // Stopped first, so that everything the server keeps is on disk (the database, its WAL and shared memory).
    await server!.stop();
    const files = readdirSync(dir).filter((name) => name.startsWith('temporal.db'));
    expect(files).toContain('temporal.db');
    const bytes = Buffer.concat(files.map((name) => readFileSync(path.join(dir, name))));
    const found = (marker: string) => bytes.includes(Buffer.from(marker, 'utf8'));
    expect([...plain.markers, plain.failure].filter(found)).toEqual([...plain.markers, plain.failure]);
    expect([...sealed.markers, sealed.failure].filter(found)).toEqual([]);
  }, 120_000);
});
