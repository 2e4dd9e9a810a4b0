import { renderDoctor } from '../../../cli/render/doctor';
import { doctorReportOf, type DoctorCheck } from '../../../core/schemas/doctor';
import type { ModelPlan } from '../../../core/schemas/model-call';

/*
 * What `ragtime doctor` prints (issue 24 §3): one line per check, the plan of each model under its line, and a last
 * line that sums up. The checks below are the shapes workers/doctor/ returns; their texts are examples of its lines.
 */

const plan = (update: Partial<ModelPlan> = {}): ModelPlan => ({
  model: 'gpt-5-mini',
  endpoint: 'api.openai.com',
  variables: ['FAST_MODEL', 'GRADE_MODEL'],
  outputMode: 'json_schema',
  outputReason: 'MODEL_OUTPUT_MODE auto: the strongest rung, not refused',
  temperature: null,
  temperatureReason: 'omitted: OpenAI gpt-5 family refuse temperature 0',
  ...update,
});

const ok: DoctorCheck[] = [
  { kind: 'temporal', target: '127.0.0.1:7233', ok: true, detail: 'namespace default', ms: 12 },
  { kind: 'worker', target: 'task queue ragtime', ok: true, detail: '1 worker polling (4611@host)', ms: 9 },
  { kind: 'milvus', target: '127.0.0.1:19530', ok: true, detail: '2 collections; default knowledge base ragtime_demo_kb: 1234 rows', ms: 31 },
  { kind: 'embeddings', target: 'http://127.0.0.1:8765/v1', ok: true, detail: 'multilingual-e5-small-q4: one 384-d vector (EMBEDDING_DIM 384)', ms: 48 },
  { kind: 'database', target: 'SQLite in /srv/ragtime/.data', ok: true, detail: 'the folder of ragtime.sqlite and audit.sqlite is writable', ms: 2 },
  { kind: 'rerank', target: '(off)', ok: true, detail: 'off: RERANK_MODEL, RERANK_BINDING_HOST, RERANK_API_KEY are not set; retrieval ranks by fusion alone', ms: 0 },
  { kind: 'model', target: 'gpt-5-mini @ api.openai.com', ok: true, detail: 'answered the probe', ms: 812, plan: plan() },
];

test('all checks pass: a line each, the model plan under its line, and "all N checks passed"', () => {
  expect(renderDoctor(doctorReportOf(ok))).toMatchInlineSnapshot(`
    "ok   temporal   127.0.0.1:7233                namespace default (12 ms)
    ok   worker     task queue ragtime            1 worker polling (4611@host) (9 ms)
    ok   milvus     127.0.0.1:19530               2 collections; default knowledge base ragtime_demo_kb: 1234 rows (31 ms)
    ok   embeddings http://127.0.0.1:8765/v1      multilingual-e5-small-q4: one 384-d vector (EMBEDDING_DIM 384) (48 ms)
    ok   database   SQLite in /srv/ragtime/.data  the folder of ragtime.sqlite and audit.sqlite is writable (2 ms)
    ok   rerank     (off)                         off: RERANK_MODEL, RERANK_BINDING_HOST, RERANK_API_KEY are not set; retrieval ranks by fusion alone (0 ms)
    ok   model      gpt-5-mini @ api.openai.com   answered the probe (812 ms)
                    plan (FAST_MODEL, GRADE_MODEL): gpt-5-mini: json_schema (MODEL_OUTPUT_MODE auto: the strongest rung, not refused), temperature omitted (omitted: OpenAI gpt-5 family refuse temperature 0)
    all 7 checks passed"
  `);
});

test('failures: FAIL lines with the problem and its fix, a model that stepped down the ladder, and the kinds that failed', () => {
  const checks: DoctorCheck[] = [
    ok[0] as DoctorCheck,
    {
      kind: 'milvus',
      target: '127.0.0.1:19530',
      ok: false,
      detail: 'Milvus at 127.0.0.1:19530 is unreachable (connect ECONNREFUSED 127.0.0.1:19530): start it with `npx ragtime services up` (or `make up`)',
      ms: 503,
    },
    {
      kind: 'model',
      target: 'deepseek-chat @ api.deepseek.com',
      ok: true,
      detail: 'answered the probe',
      ms: 1490,
      plan: plan({ model: 'deepseek-chat', endpoint: 'api.deepseek.com', variables: ['GRADE_MODEL'], outputMode: 'json_object', outputReason: 'json_schema refused: 400 response_format type unavailable', temperature: 0, temperatureReason: "the spec's 0, MODEL_TEMPERATURE unset" }),
    },
    { kind: 'model', target: 'e2e-fast @ 127.0.0.1:4010', ok: false, detail: 'OPENAI_API_KEY was refused by 127.0.0.1:4010 (401): check OPENAI_API_KEY', ms: 7, plan: plan({ model: 'e2e-fast', endpoint: '127.0.0.1:4010', variables: [] }) },
  ];
  const report = doctorReportOf(checks);
  expect(report.ok).toBe(false);
  expect(renderDoctor(report)).toMatchInlineSnapshot(`
    "ok   temporal   127.0.0.1:7233                    namespace default (12 ms)
    FAIL milvus     127.0.0.1:19530                   Milvus at 127.0.0.1:19530 is unreachable (connect ECONNREFUSED 127.0.0.1:19530): start it with \`npx ragtime services up\` (or \`make up\`) (503 ms)
    ok   model      deepseek-chat @ api.deepseek.com  answered the probe (1490 ms)
                    plan (GRADE_MODEL): deepseek-chat: json_object (json_schema refused: 400 response_format type unavailable), temperature 0 (the spec's 0, MODEL_TEMPERATURE unset)
    FAIL model      e2e-fast @ 127.0.0.1:4010         OPENAI_API_KEY was refused by 127.0.0.1:4010 (401): check OPENAI_API_KEY (7 ms)
                    plan: e2e-fast: json_schema (MODEL_OUTPUT_MODE auto: the strongest rung, not refused), temperature omitted (omitted: OpenAI gpt-5 family refuse temperature 0)
    2 of 4 checks failed (milvus, model): see the FAIL lines above"
  `);
});

test('a target longer than the column pushes only its own line', () => {
  const long = 'SQLite in /a/folder/path/that/is/much/longer/than/the/column/allows';
  const lines = renderDoctor(doctorReportOf([ok[0] as DoctorCheck, { kind: 'database', target: long, ok: true, detail: 'writable', ms: 1 }])).split('\n');
  expect(lines[0]).toBe(`ok   temporal   ${'127.0.0.1:7233'.padEnd(40)}  namespace default (12 ms)`);
  expect(lines[1]).toBe(`ok   database   ${long}  writable (1 ms)`);
});
