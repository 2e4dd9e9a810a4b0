import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { RagClient } from '../../client/rag-client';
import { telemetryClientInterceptors } from '../../runtime/telemetry/client-interceptors';
import { setupTelemetry, type Telemetry } from '../../runtime/telemetry/setup-telemetry';
import { parseConfig } from '../../core/config';
import { OTEL_WORKFLOW_INTERCEPTOR_MODULE, telemetryWorkerOptions } from '../../workers/telemetry';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';
import { FakeLeafStore, fakeLeaf } from '../support/fake-knowledge-store';
import { LoopbackRerankServer, jsonReply } from '../support/rerank-server';
import { QUERY, RERANK_MODEL, retrieverHarness } from '../support/retriever-harness';
import { grade } from '../support/scenario';
import { pollUntil } from '../support/services';
import { newTaskQueue, openWorkflowEnv, sessionId, type WorkflowEnv } from './harness';

/*
 * OpenTelemetry (issue 6 §4, docs/OBSERVABILITY.md) on the dev server, with an in-memory span exporter: a run makes
 * Temporal's spans (client start, RunWorkflow, StartActivity/RunActivity) in one trace, and inside the activities
 * ragtime's retriever, reranker and model-call spans with OpenInference / GenAI attribute names — and no content
 * unless RAGTIME_OTEL_CONTENT=true. The real retriever (loopback rerank server, in-memory stores) and the real OpenAI
 * adapter (scripted OpenAI-compatible server) run inside the activities.
 */

const API_KEY = 'sk-test-telemetry';
const CHUNK_TEXTS = ['secret-chunk-one about alpha', 'secret-chunk-two about alpha and beta', 'secret-chunk-three'];
const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
let env: WorkflowEnv;
let openai: FakeOpenAiServer;
let rerank: LoopbackRerankServer;

beforeAll(async () => {
  telemetry = setupTelemetry(parseConfig({}).telemetry, { role: 'worker', exporter });
  env = await openWorkflowEnv({ workflowInterceptorModules: [OTEL_WORKFLOW_INTERCEPTOR_MODULE] });
  openai = await startFakeOpenAiServer({ apiKey: API_KEY });
  rerank = await LoopbackRerankServer.start();
}, 120_000);
afterAll(async () => {
  await Promise.allSettled([env?.close(), openai?.close(), rerank?.close()]);
  await telemetry?.shutdown();
});
beforeEach(() => {
  exporter.reset();
  openai.reset();
  rerank.reset();
  openai.setDefault('complexity_result', { json: { complexity: 'simple', reason: 'one fact', sub_questions: [] } });
  openai.setDefault('evidence_grade', { json: grade('strong', 'sufficient', 'none', 'answer', 0.95) });
  // The reranker puts the second candidate first.
  rerank.always(jsonReply({ results: [{ index: 1, relevance_score: 0.91 }, { index: 0, relevance_score: 0.42 }] }));
});

/** A worker with the real retriever and OpenAI adapter, with or without content in its spans. */
async function tracedWorker(taskQueue: string, content: boolean): Promise<Worker> {
  const env_: Record<string, string> = content ? { RAGTIME_OTEL_CONTENT: 'true' } : {};
  const leaves = new FakeLeafStore(CHUNK_TEXTS.map((text, i) => fakeLeaf(i + 1, { text, dense: [1 - i * 0.2, i * 0.2, 0, 0], terms: text.split(' ') })));
  const { retriever } = retrieverHarness(rerank, { rerank: true, leaves, env: env_ });
  const models = createOpenAiChatModels({ apiKey: API_KEY, baseUrl: openai.baseUrl, fastModel: 'fast-model', gradeModel: 'grade-model', telemetry: { includeContent: content } });
  const { interceptors, sinks } = telemetryWorkerOptions(telemetry);
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle, // bundled with OTEL_WORKFLOW_INTERCEPTOR_MODULE above
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever }),
    interceptors: { ...interceptors, workflowModules: [] },
    sinks,
  });
}

const tracedClient = (taskQueue: string) =>
  RagClient.fromClient(new Client({ connection: env.client.connection, dataConverter: env.dataConverter, interceptors: telemetryClientInterceptors(telemetry) }), taskQueue);

const named = (spans: ReadableSpan[], name: string): ReadableSpan[] => spans.filter((span) => span.name === name);
const one = (spans: ReadableSpan[], name: string): ReadableSpan => {
  const found = named(spans, name);
  if (found.length === 0) throw new Error(`no span named ${name}; spans: ${[...new Set(spans.map((s) => s.name))].join(', ')}`);
  return found[0]!;
};
/** Waits for the workflow's spans, which reach the exporter through the worker's sink after each activation. */
const spansWith = (...names: string[]) =>
  pollUntil(`spans ${names.join(', ')}`, async () => {
    const spans = exporter.getFinishedSpans();
    return names.every((name) => spans.some((span) => span.name === name)) ? spans : undefined;
  });

test('a run: Temporal spans in one trace, and RETRIEVER / RERANKER / GenAI spans inside the activities, without content', async () => {
  const taskQueue = newTaskQueue();
  const worker = await tracedWorker(taskQueue, false);
  const outcome = await worker.runUntil(tracedClient(taskQueue).ask(QUERY, { sessionId: sessionId() }));
  expect(outcome).toMatchObject({ status: 'completed', route: 'answer' });
  const spans = await spansWith('UpdateWithStartWorkflow:awaitOutcome', 'RunWorkflow:ragWorkflow', 'StartActivity:retrieve', 'RunActivity:retrieve', 'RunActivity:gradeEvidence', 'retrieve', 'rerank', 'chat grade-model');

  // One trace, from the client's update-with-start down to the model call.
  const traceIds = new Set(spans.map((span) => span.spanContext().traceId));
  expect(traceIds.size).toBe(1);
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  const parentName = (span: ReadableSpan) => byId.get(span.parentSpanId ?? '')?.name;
  expect(parentName(one(spans, 'retrieve'))).toBe('RunActivity:retrieve');
  expect(parentName(one(spans, 'rerank'))).toBe('retrieve');
  expect(parentName(one(spans, 'chat grade-model'))).toBe('RunActivity:gradeEvidence');
  expect(parentName(one(spans, 'RunActivity:retrieve'))).toBe('StartActivity:retrieve');

  const retrieve = one(spans, 'retrieve').attributes;
  expect(retrieve['openinference.span.kind']).toBe('RETRIEVER');
  expect(retrieve['retrieval.documents.0.document.id']).toBe('doc.md::p0::l3::2'); // reranked first
  expect(retrieve['retrieval.documents.0.document.score']).toBe(0.91);
  expect(retrieve['retrieval.documents.1.document.score']).toBe(0.42);
  expect(retrieve['ragtime.retrieval.mode']).toBe('hybrid');
  expect(retrieve['ragtime.retrieval.rerank_applied']).toBe(true);

  const reranker = one(spans, 'rerank').attributes;
  expect(reranker).toMatchObject({ 'openinference.span.kind': 'RERANKER', 'reranker.model_name': RERANK_MODEL, 'reranker.top_k': 2 });
  expect(reranker['reranker.input_documents.0.document.id']).toBe('doc.md::p0::l3::1');
  expect(typeof reranker['reranker.input_documents.0.document.score']).toBe('number');
  expect(reranker['reranker.output_documents.0.document.id']).toBe('doc.md::p0::l3::2');
  expect(reranker['reranker.output_documents.0.document.score']).toBe(0.91);

  const chat = one(spans, 'chat grade-model');
  expect(chat.kind).toBe(SpanKind.CLIENT);
  expect(chat.attributes).toMatchObject({
    'gen_ai.system': 'openai',
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'grade-model',
    'gen_ai.response.model': 'grade-model',
    'gen_ai.response.finish_reasons': ['stop'],
    'gen_ai.usage.input_tokens': 10, // the fake server's usage block
    'gen_ai.usage.output_tokens': 10,
    'ragtime.model.schema': 'evidence_grade',
    'server.address': '127.0.0.1',
  });

  // Workflow spans carry the run's identity only: the SDK's sink would add the whole WorkflowInfo, memo included.
  expect(Object.keys(one(spans, 'RunWorkflow:ragWorkflow').attributes).sort()).toEqual(['attempt', 'namespace', 'runId', 'taskQueue', 'workflowId', 'workflowType']);

  // No content by default: no query, prompt, completion or chunk text in any attribute of any span.
  const attributeText = JSON.stringify(spans.map((span) => span.attributes));
  for (const text of [QUERY, ...CHUNK_TEXTS, 'secret-chunk']) expect(attributeText).not.toContain(text);
  const keys = spans.flatMap((span) => Object.keys(span.attributes));
  expect(keys.filter((key) => /\.content$|^input\.value$|^reranker\.query$|^gen_ai\.(input|output)\.messages$/.test(key))).toEqual([]);
});

test('a workflow started with client.workflow.start makes a StartWorkflow span, parent of RunWorkflow', async () => {
  const taskQueue = newTaskQueue();
  const worker = await tracedWorker(taskQueue, false);
  const rag = tracedClient(taskQueue);
  await worker.runUntil(async () => {
    const handle = await rag.temporal.workflow.start('ragWorkflow', { taskQueue, workflowId: `otel-${taskQueue}`, args: [{ question: QUERY, sessionId: sessionId() }] });
    await handle.result();
  });
  const spans = await spansWith('StartWorkflow:ragWorkflow', 'RunWorkflow:ragWorkflow', 'RunActivity:retrieve');
  const start = one(spans, 'StartWorkflow:ragWorkflow');
  const run = one(spans, 'RunWorkflow:ragWorkflow');
  expect(run.parentSpanId).toBe(start.spanContext().spanId);
  expect(one(spans, 'RunActivity:retrieve').spanContext().traceId).toBe(start.spanContext().traceId);
});

test('RAGTIME_OTEL_CONTENT=true: the query, chunk texts, prompt and completion are on the spans', async () => {
  const taskQueue = newTaskQueue();
  const worker = await tracedWorker(taskQueue, true);
  await worker.runUntil(tracedClient(taskQueue).ask(QUERY, { sessionId: sessionId() }));
  const spans = await spansWith('retrieve', 'rerank', 'chat grade-model');
  const retrieve = one(spans, 'retrieve').attributes;
  expect(retrieve['input.value']).toBe(QUERY);
  expect(retrieve['retrieval.documents.0.document.content']).toBe(CHUNK_TEXTS[1]);
  expect(one(spans, 'rerank').attributes['reranker.query']).toBe(QUERY);
  const chat = one(spans, 'chat grade-model').attributes;
  expect(JSON.parse(String(chat['gen_ai.input.messages']))[0]).toMatchObject({ role: 'user', parts: [{ type: 'text', content: expect.stringContaining(QUERY) }] });
  expect(JSON.parse(String(chat['gen_ai.output.messages']))[0]).toMatchObject({ role: 'assistant', finish_reason: 'stop' });
});

test('with RAGTIME_OTEL_EXPORTER=none nothing is installed: no interceptors, no sink, no workflow module', () => {
  const off = setupTelemetry(parseConfig({ RAGTIME_OTEL_EXPORTER: 'none' }).telemetry, { role: 'worker' });
  expect(off.enabled).toBe(false);
  expect(telemetryWorkerOptions(off)).toEqual({});
  expect(telemetryClientInterceptors(off)).toBeUndefined();
});
