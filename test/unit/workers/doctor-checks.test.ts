import type { ChatModels, ModelProbe } from '../../../activities/ports';
import { parseConfig } from '../../../core/config';
import type { DoctorCheck } from '../../../core/schemas/doctor';
import type { ModelPlan } from '../../../core/schemas/model-call';
import { runCheck } from '../../../workers/doctor/check-runner';
import { reasonOf, startHint } from '../../../workers/doctor/failure-text';
import { checksOf, modelChecks } from '../../../workers/doctor/model-checks';
import { scrubSecrets, secretsOf } from '../../../workers/doctor/scrub-secrets';
import { workerCheckResult } from '../../../workers/doctor/temporal-checks';

/*
 * The parts of workers/doctor/ that need no service: a check that never answers, the model lines from a provider's
 * probe and plans, and the masking of secrets. The services themselves are checked in test/e2e/doctor.test.ts and
 * test/integration/http-doctor.test.ts.
 */

const plan = (model: string): ModelPlan => ({
  model,
  endpoint: 'llm.example:443',
  variables: ['FAST_MODEL'],
  outputMode: 'tools',
  outputReason: 'json_schema refused',
  temperature: 0,
  temperatureReason: "the spec's 0",
});

const models = (extra: Partial<ChatModels>): ChatModels => ({
  describe: 'scripted',
  answerModel: 'scripted',
  planComplexity: async () => ({}),
  gradeEvidence: async () => ({}),
  planRewrite: async () => ({}),
  writeAnswer: async () => ({}),
  ...extra,
});

test('a check that never answers fails at its deadline, its signal aborted, with the failure line it builds', async () => {
  let aborted = false;
  const check = await runCheck({
    kind: 'milvus',
    target: '10.0.0.9:19530',
    timeoutMs: 50,
    run: (signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
    failure: (error) => `Milvus at 10.0.0.9:19530 is unreachable (${reasonOf(error)}): ${startHint('Milvus', '10.0.0.9:19530', 'MILVUS_ADDRESS')}`,
  });
  expect(aborted).toBe(true);
  expect(check).toMatchObject({ kind: 'milvus', ok: false });
  expect(check.detail).toMatchInlineSnapshot(`"Milvus at 10.0.0.9:19530 is unreachable (no answer within 50 ms): check that Milvus runs at 10.0.0.9:19530 and that MILVUS_ADDRESS names it"`);
});

test("a gRPC client's failure is reported by the socket's own reason", () => {
  const grpc = new Error('14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1. Resolution note:  (retried 3 times, 160ms)');
  expect(reasonOf(new Error('Milvus showCollections failed', { cause: grpc }))).toBe('connect ECONNREFUSED 127.0.0.1:1');
});

describe('model checks', () => {
  const probe = (model: string, ok: boolean, detail: string): ModelProbe => ({ plan: plan(model), ok, detail, ms: 12.4 });

  test('one check per probe with its plan; plans the probe did not cover are listed as not probed', async () => {
    const checks = await checksOf(models({ plans: () => [plan('a'), plan('b')], probe: async () => [probe('a', false, 'a refused the key')] }), 1_000);
    expect(checks.map(({ target, ok, detail, ms, plan: p }) => [target, ok, detail, ms, p?.model])).toEqual([
      ['a @ llm.example:443', false, 'a refused the key', 12, 'a'],
      ['b @ llm.example:443', true, 'not probed', 0, 'b'],
    ]);
  });

  test('a probe that throws or never settles fails every planned model with the reason', async () => {
    const thrown = await checksOf(models({ plans: () => [plan('a')], probe: async () => Promise.reject(new Error('socket hang up')) }), 1_000);
    expect(thrown).toEqual([expect.objectContaining({ target: 'a @ llm.example:443', ok: false, detail: expect.stringContaining('the probe failed (socket hang up)') })]);
    const hung = await checksOf(models({ probe: () => new Promise<ModelProbe[]>(() => undefined) }), 30);
    expect(hung).toEqual([expect.objectContaining({ target: 'scripted', ok: false, detail: expect.stringContaining('the probe failed (no answer within 30 ms)') })]);
  });

  test('a provider without a probe: its plans, or one line saying it cannot be probed', async () => {
    expect((await checksOf(models({ plans: () => [plan('a')] }), 1_000)).map((check) => [check.target, check.ok, check.detail])).toEqual([['a @ llm.example:443', true, 'not probed: this provider has no probe']]);
    expect((await checksOf(models({}), 1_000)).map((check) => [check.target, check.ok, check.detail])).toEqual([['scripted', true, 'not probed: this provider has no probe']]);
  });

  test('the offline policy provider: one ok line saying why it runs', async () => {
    const [explicit] = await modelChecks(parseConfig({ MODEL_PROVIDER: 'offline' }), { probeTimeoutMs: 1_000, requestTimeoutMs: 1_000 });
    const [auto] = await modelChecks(parseConfig({}), { probeTimeoutMs: 1_000, requestTimeoutMs: 1_000 });
    expect([explicit?.detail, auto?.detail]).toEqual([
      'the offline policy provider calls no chat model; it reads meaning with the embedding model (MODEL_PROVIDER=offline; docs/offline-policy.md)',
      'the offline policy provider calls no chat model; it reads meaning with the embedding model (MODEL_PROVIDER unset, and OPENAI_API_KEY, FAST_MODEL and GRADE_MODEL are not all set; docs/offline-policy.md)',
    ]);
  });
});

test('every configured secret is masked in targets, details and plans', () => {
  const config = parseConfig({
    OPENAI_API_KEY: 'sk-live-abcdef123',
    FAST_MODEL: 'f',
    GRADE_MODEL: 'g',
    DATABASE_URL: 'postgres://app:pa55word@db.internal:5432/rag',
    RERANK_API_KEY: 'rk-secret-999',
    MILVUS_TOKEN: 'root:Milvus-token',
  });
  const leaky: DoctorCheck[] = [
    { kind: 'database', target: 'postgres://app:pa55word@db.internal', ok: false, detail: 'refused pa55word', ms: 1 },
    { kind: 'model', target: 'f', ok: false, detail: 'Incorrect API key provided: sk-live-abcdef123', ms: 1, plan: { ...plan('f'), outputReason: 'echo sk-live-abcdef123' } },
    { kind: 'milvus', target: 'm', ok: false, detail: 'token root:Milvus-token; rerank key rk-secret-999', ms: 1 },
  ];
  const text = JSON.stringify(scrubSecrets(leaky, secretsOf(config)));
  for (const secret of ['pa55word', 'sk-live-abcdef123', 'rk-secret-999', 'root:Milvus-token']) expect(text).not.toContain(secret);
  expect(text).toContain('Incorrect API key provided: ***');
});

// Issue 43 §5: Temporal lists pollers it saw in the last minutes; doctor counted a worker stopped long ago as polling.
describe('worker check', () => {
  const NOW = 1_800_000_000_000;
  const where = { address: '127.0.0.1:7233', taskQueue: 'ragtime' };
  const shell = { kb: 'docs', source: 'RAGTIME_KB in .data/settings.env' };
  const seen = (identity: string, agoMs: number | null) => ({ identity, lastAccessMs: agoMs === null ? null : NOW - agoMs });

  test('a poller not seen for over 70 s has stopped: not counted, and said so', () => {
    const pollers = [seen('11@host/provider=offline/kb=docs', 20_000), seen('9@host/provider=offline/kb=docs', 5 * 60_000)];
    expect(workerCheckResult(pollers, NOW, where, shell)).toEqual({ detail: '1 worker polling (11@host/provider=offline/kb=docs); 1 stopped worker not counted (not seen for over 70 s)' });
  });

  test('only stopped pollers: no worker polls', () => {
    const result = workerCheckResult([seen('9@host/provider=offline/kb=docs', 71_000)], NOW, where, shell);
    expect(result).toEqual({
      ok: false,
      detail: 'no ragtime worker polls task queue ragtime on 127.0.0.1:7233; 1 stopped worker not counted (not seen for over 70 s): start one with `npx ragtime worker` (`make demo` runs one in the background)',
    });
  });

  test('live workers of two providers on one queue fail the check; a poller whose last access is not said counts as live', () => {
    const result = workerCheckResult([seen('11@host/provider=offline/kb=docs', 1_000), seen('12@host/provider=local/kb=docs', null)], NOW, where, shell);
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/^workers of 2 model providers \(offline, local\) poll task queue ragtime/);
  });
});
