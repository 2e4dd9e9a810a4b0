import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { createOpenAiChatModels } from '../../../activities/adapters/openai-chat-models';
import { setupTelemetry, type Telemetry } from '../../../runtime/telemetry/setup-telemetry';
import { parseConfig } from '../../../core/config';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../../support/fake-openai-server';
import { closedPort, type LoopbackRerankServer } from '../../support/rerank-server';
import { QUERY, retrieverHarness } from '../../support/retriever-harness';

/*
 * Failure paths of ragtime's own spans (docs/OBSERVABILITY.md): a failed model call or rerank request ends its span
 * with status ERROR and `error.type`; the error's message — which can quote a model reply — only with content on.
 */

const API_KEY = 'sk-test-spans';
const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
let openai: FakeOpenAiServer;

beforeAll(async () => {
  telemetry = setupTelemetry(parseConfig({}).telemetry, { role: 'worker', exporter });
  openai = await startFakeOpenAiServer({ apiKey: API_KEY });
});
afterAll(async () => {
  await openai.close();
  await telemetry.shutdown();
});
beforeEach(() => {
  exporter.reset();
  openai.reset();
});

const models = (includeContent: boolean) =>
  createOpenAiChatModels({ apiKey: API_KEY, baseUrl: openai.baseUrl, fastModel: 'fast-model', gradeModel: 'grade-model', telemetry: { includeContent } });

test('a reply that is not JSON: the chat span ends in ERROR with error.type, and without the reply by default', async () => {
  // Twice: the reply and the answer to its one re-ask (issue 24).
  openai.enqueue('rewrite_plan', { content: 'not json: secret-reply-text' }, { content: 'not json: secret-reply-text' });
  await expect(models(false).planRewrite('q')).rejects.toMatchObject({ code: 'MODEL_OUTPUT_INVALID' });
  const [span] = exporter.getFinishedSpans();
  expect(span?.name).toBe('chat fast-model');
  expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'MODEL_OUTPUT_INVALID' });
  expect(span?.attributes['error.type']).toBe('MODEL_OUTPUT_INVALID');
  expect(span?.attributes['gen_ai.usage.input_tokens']).toBe(10); // the reply came, with its usage
  expect(JSON.stringify([span?.attributes, span?.events, span?.status])).not.toContain('secret-reply-text');
});

test('with content on, the failed call keeps the message and the exception event', async () => {
  openai.enqueue('rewrite_plan', { content: 'not json: secret-reply-text' }, { content: 'not json: secret-reply-text' });
  await expect(models(true).planRewrite('q')).rejects.toMatchObject({ code: 'MODEL_OUTPUT_INVALID' });
  const [span] = exporter.getFinishedSpans();
  expect(span?.status.message).toContain('secret-reply-text');
  expect(span?.events.map((event) => event.name)).toEqual(['exception']);
});

test('a rerank request that fails in transport: the RERANKER span is ERROR, the RETRIEVER span still lists documents', async () => {
  const unreachable = { host: `http://127.0.0.1:${await closedPort()}` } as LoopbackRerankServer;
  const { retriever } = retrieverHarness(unreachable, { rerank: true });
  const result = await retriever.retrieve(QUERY);
  expect(result.meta.rerank_error).toMatch(/^rerank request failed/);
  const spans = exporter.getFinishedSpans();
  const rerank = spans.find((span) => span.name === 'rerank');
  expect(rerank?.status.code).toBe(SpanStatusCode.ERROR);
  expect(rerank?.attributes['error.type']).toBe('rerank_failed');
  const retrieve = spans.find((span) => span.name === 'retrieve');
  expect(retrieve?.status.code).toBe(SpanStatusCode.UNSET);
  expect(retrieve?.attributes['retrieval.documents.0.document.id']).toEqual(expect.any(String));
  expect(retrieve?.attributes['ragtime.retrieval.rerank_error']).toMatch(/^rerank request failed/);
});
