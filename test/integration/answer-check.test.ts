import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { modelActivities } from '../../activities/model-activities';
import { RagClient } from '../../client/rag-client';
import { NO_KNOWLEDGE_TEXT_ZH } from '../../core/answer/no-knowledge-text';
import { splitSentences } from '../../core/answer/sentences';
import type { AnswerCheckAction } from '../../core/schemas/answer';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';
import { bare, changeableTokens, draftOf, inventNumber } from '../support/inventing-writer';
import { grade, retrievalTable } from '../support/scenario';
import { defaultAuditStore, newTaskQueue, openWorkflowEnv, sessionId, type WorkflowEnv } from '../workflows/harness';

/*
 * The answer check (issue 26 §4) on the OpenAI provider's answer path: the real openai SDK against the loopback
 * OpenAI-compatible server, scripted as a writer that quotes a sentence of the Aurora X2 manual verbatim and
 * sometimes changes one of its numbers in the answer (test/support/inventing-writer.ts). The quote still holds, so
 * the citation check says `verified`; the answer check flags the changed number, and ANSWER_CHECK_ACTION decides
 * what the outcome carries (warn: the answer, flagged; refuse: the no-knowledge sentence, the text withheld).
 */

const API_KEY = 'sk-test-ANSWER-CHECK-0123456789';
const MANUAL = readFileSync(path.join(__dirname, '../../samples/knowledge/Aurora X2 路由器.md'), 'utf8');
const DOCS: Chunk[] = [{ chunk_id: 'aurora-1', filename: 'Aurora X2 路由器.md', page_number: 1, text: MANUAL }];
const Q = 'Aurora X2 路由器的保修和价格是怎样的？';
// The manual's sentences that hold a number (samples/knowledge: 399 元, 2 年, 10 秒, X2 in each).
const SENTENCES = splitSentences(MANUAL).filter((sentence) => !sentence.startsWith('#') && changeableTokens(sentence).some((token) => token.kind !== 'model_name'));

let server: FakeOpenAiServer;
let env: WorkflowEnv;
beforeAll(async () => {
  server = await startFakeOpenAiServer({ apiKey: API_KEY });
  env = await openWorkflowEnv();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await env?.close();
});
beforeEach(() => server.reset());

const openAi = () =>
  createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast-mini', gradeModel: 'grade-large', answerModel: 'answer-large' });
const generate = (answerCheck?: AnswerCheckAction) => {
  const call = () => modelActivities(openAi(), answerCheck === undefined ? {} : { answerCheck }).generateAnswer({ question: Q, docs: DOCS });
  return new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') }).run<[], Awaited<ReturnType<typeof call>>, typeof call>(call);
};

/** Every other case invents: the last number of the sentence (not the model name X2 the question holds) raised by one. */
function cases() {
  return SENTENCES.flatMap((sentence, i) => {
    const quote = bare(sentence);
    const token = changeableTokens(quote).filter((candidate) => candidate.kind !== 'model_name').at(-1);
    if (token === undefined) return [];
    const invented = i % 2 === 1;
    return [{ quote, invented, token: token.surface, answer: invented ? inventNumber(quote, token) : quote }];
  });
}

describe('I26-4 the answer check through the real SDK', () => {
  test('a writer that sometimes changes a number: the changed ones flagged (warn, answer kept), the faithful ones clean', async () => {
    const all = cases();
    expect(all.length).toBeGreaterThanOrEqual(3); // 399 元, 2 年, 10 秒: the manual's numbers
    expect(all.filter((one) => one.invented).length).toBeGreaterThan(0);
    for (const one of all) {
      server.enqueue('answer_draft', { json: draftOf(one.answer, one.quote) });
      const { data } = await generate();
      expect(data.verification.status).toBe('verified'); // the quote holds either way
      expect(data.text).toBe(`${one.answer}[1]。`);
      if (!one.invented) {
        expect(data.verification).toEqual({ status: 'verified', invalid_citations: [], uncited_sentences: [] });
        continue;
      }
      expect(data.verification.action).toBe('warn');
      expect(data.verification.numeric_warnings).toEqual([
        { token: inventNumber(one.token, changeableTokens(one.token)[0]!), kind: expect.any(String), sentence: `${one.answer}[1]。`, reason: 'not_in_quotes' },
      ]);
      expect(data.withheld_text).toBeUndefined();
    }
    expect(server.requests.filter((request) => request.schemaName === 'answer_draft')).toHaveLength(all.length);
  });

  test('ANSWER_CHECK_ACTION=refuse: an invented number is withheld (no-knowledge text, withheld_text); a faithful answer is not', async () => {
    const [faithful, invented] = [cases().find((one) => !one.invented)!, cases().find((one) => one.invented)!];
    server.enqueue('answer_draft', { json: draftOf(invented.answer, invented.quote) }, { json: draftOf(faithful.answer, faithful.quote) });
    const refused = (await generate('refuse')).data;
    expect(refused).toMatchObject({ text: NO_KNOWLEDGE_TEXT_ZH, withheld_text: `${invented.answer}[1]。`, verification: { status: 'verified', action: 'refuse' } });
    expect(refused.citations).toHaveLength(1);
    const kept = (await generate('refuse')).data;
    expect(kept.text).toBe(`${faithful.answer}[1]。`);
    expect(kept.verification.action).toBeUndefined();
  });

  test('a whole run on a worker with ANSWER_CHECK_ACTION=refuse: the outcome shows the refusal, the route stays answer', async () => {
    const invented = cases().find((one) => one.invented)!;
    // The question is not on the fast path (spec §4.1): the planner says simple.
    server.setDefault('complexity_result', { json: { complexity: 'simple', reason: '单一信息点查询', sub_questions: [] } });
    server.setDefault('evidence_grade', { json: grade('strong', 'sufficient', 'none', 'answer', 0.95) });
    server.enqueue('answer_draft', { json: draftOf(invented.answer, invented.quote) });
    const taskQueue = newTaskQueue();
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: env.workflowBundle,
      dataConverter: env.dataConverter,
      activities: createActivities({ models: openAi(), retriever: { retrieve: async (query) => retrievalTable({ [Q]: DOCS })(query) }, audit: defaultAuditStore(), answerCheck: 'refuse' }),
    });
    const outcome = await worker.runUntil(RagClient.fromClient(env.client, taskQueue).ask(Q, { sessionId: sessionId() }));
    expect([outcome.status, outcome.route]).toEqual(['completed', 'answer']);
    expect(outcome.answer).toMatchObject({ text: NO_KNOWLEDGE_TEXT_ZH, withheld_text: `${invented.answer}[1]。`, verification: { status: 'verified', action: 'refuse' } });
    expect(outcome.answer?.verification.numeric_warnings).toHaveLength(1);
    // Verified citations: no repair was asked for (the check does not change the repair rule).
    expect(server.requests.filter((request) => request.schemaName === 'answer_draft')).toHaveLength(1);
  });
});
