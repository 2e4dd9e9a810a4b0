import { createSessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { chunk, grade, plannerResult, retrievalTable } from '../support/scenario';
import { openWorkflowEnv, sessionId, withWorker, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * Issue 44 §5 on the real dev server, with the real conversation activities and session turn store (SQLite in
 * memory) and scripted models: a greeting, a thanks or a question about the conversation ends without a retrieval
 * activity — no planner, retriever, grader or answer writer is called — its answer in the question's language, its
 * trace saying `intent` and `needs_retrieval: false`; a real question runs the graph as before, its trace unchanged.
 */

let env: WorkflowEnv;
let turns: SqlSessionTurnStore;
beforeAll(async () => {
  env = await openWorkflowEnv();
  turns = createSessionTurnStore({ sqliteFile: ':memory:' });
}, 120_000);
afterAll(async () => {
  await turns?.close();
  await env?.close();
});

const Q1 = 'Aurora X2 路由器的保修期是多久？';
const HIFI = 'Hi-Fi 音箱多少钱?';
const warranty: Chunk = chunk('Aurora X2 路由器的保修期为两年。', { chunk_id: 'aurora.md::p1::l3::1', filename: 'aurora.md', page_number: 1 });
const hifi: Chunk = chunk('Hi-Fi 音箱的建议零售价为 1299 元。', { chunk_id: 'hifi.md::p1::l3::1', filename: 'hifi.md', page_number: 1 });
const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);

const script = (extra: Partial<AdapterScript> = {}): AdapterScript => ({
  retrieve: retrievalTable({ [Q1]: [warranty], [HIFI]: [hifi], Hi: [] }),
  grades: { [Q1]: [sure], [HIFI]: [sure] },
  planner: plannerResult('simple', '单一事实问题', []),
  ...extra,
});

describe('questions that need no retrieval', () => {
  test('a greeting ends without a retrieval activity; the trace says intent and needs_retrieval', async () => {
    await withWorker(env, script(), async (rag, calls, _queue, answerCalls) => {
      const outcome = await rag.ask('你好！', { sessionId: sessionId() });
      expect([outcome.status, outcome.route, outcome.retrieval_status, outcome.answer?.text]).toEqual(['completed', 'answer', null, '你好！有什么关于知识库文档的问题，尽管问我。']);
      expect(outcome.docs).toEqual([]);
      expect(calls).toEqual({ planner: [], retrieval: [], grader: [], rewriter: [] });
      expect(answerCalls).toEqual([]);
      expect(outcome.rag_trace).toEqual({
        tool_used: false,
        query: '你好！',
        route: 'answer',
        intent: { intent: 'greeting', confidence: 0.95, language: 'zh', decided_by: 'rules', rule: 'greeting:你好' },
        needs_retrieval: false,
      });
      // No activity of the graph was scheduled: the history holds the conversation's local activities only.
      const history = await env.client.workflow.getHandle(outcome.workflowId).fetchHistory();
      const scheduled = (history.events ?? []).flatMap((event) => (event.activityTaskScheduledEventAttributes?.activityType?.name ? [event.activityTaskScheduledEventAttributes.activityType.name] : []));
      expect(scheduled).toEqual([]);
      const steps = await rag.getProgress(outcome.workflowId);
      expect(steps.map((step) => `${step.icon} ${step.label}`)).toEqual(['💬 识别为问候 → 不检索知识库，直接回复']);
      // Speculation starts its work beside the planner, which a greeting never reaches: nothing is started ahead.
      const speculating = await rag.ask('Hi there', { sessionId: sessionId(), speculation: 'answer' });
      expect([speculating.answer?.text, speculating.speculation?.records ?? []]).toEqual(['Hello! Ask me anything about the documents in the knowledge base.', []]);
      expect(calls).toEqual({ planner: [], retrieval: [], grader: [], rewriter: [] });
    }, { turns });
  });

  test('thanks in English gets an English reply; a question about the conversation is answered from the session’s turns', async () => {
    await withWorker(env, script(), async (rag, calls) => {
      const session = sessionId();
      const first = await rag.ask(Q1, { sessionId: session });
      // A real question: the graph as before, and the spec's trace without the intent fields.
      expect(first.route).toBe('answer');
      expect(first.rag_trace).not.toHaveProperty('intent');
      expect(first.rag_trace).not.toHaveProperty('needs_retrieval');
      const thanks = await rag.ask('Thanks!', { sessionId: session });
      expect(thanks.answer?.text).toBe("You're welcome! Ask me if anything else comes up.");
      const meta = await rag.ask('我刚才问了什么？', { sessionId: session });
      // The last turn is the thanks; the first question is still in the session.
      expect(meta.answer?.text).toBe('你刚才问的是：“Thanks!”');
      expect(meta.rag_trace?.intent).toMatchObject({ intent: 'conversation_meta', rule: 'conversation_meta:last_question' });
      const topics = await rag.ask('what have we talked about?', { sessionId: session });
      expect(topics.answer?.text).toBe(`So far you asked:\n1. ${Q1}\n2. Thanks!\n3. 我刚才问了什么？`);
      expect(calls.retrieval).toEqual([Q1]);
      // Every turn is recorded, the replies too, so the next question can refer to them.
      expect((await turns.turnsOf('', session)).map((turn) => [turn.question, turn.route])).toEqual([
        [Q1, 'answer'],
        ['Thanks!', 'answer'],
        ['我刚才问了什么？', 'answer'],
        ['what have we talked about?', 'answer'],
      ]);
    }, { turns });
  });

  test('a short real question that starts like a greeting is retrieved for', async () => {
    await withWorker(env, script(), async (rag, calls) => {
      const outcome = await rag.ask(HIFI, { sessionId: sessionId() });
      expect(outcome.route).toBe('answer');
      expect(calls.retrieval).toEqual([HIFI]);
      expect(outcome.rag_trace).not.toHaveProperty('needs_retrieval');
    }, { turns });
  });

  test('with a model for the intent step: it writes the reply, or sends the question to retrieval', async () => {
    const asked: string[] = [];
    const intentReply = (question: string) => {
      asked.push(question);
      return question === 'Hi' ? { needs_retrieval: true, reply: '' } : { needs_retrieval: false, reply: 'Hello from the model!' };
    };
    await withWorker(env, script({ intentReply }), async (rag, calls) => {
      const hello = await rag.ask('Hello', { sessionId: sessionId() });
      expect([hello.answer?.text, hello.answer?.model, hello.rag_trace?.intent?.decided_by]).toEqual(['Hello from the model!', 'scripted-answerer', 'model']);
      const hi = await rag.ask('Hi', { sessionId: sessionId() });
      // The model said it needs retrieval: the graph ran (nothing retrieved → no_knowledge), the trace is the spec's.
      expect([hi.route, hi.rag_trace?.intent]).toEqual(['no_knowledge', undefined]);
      expect(calls.retrieval).toEqual(['Hi']);
      // A real question never reaches the model's intent reply.
      await rag.ask(Q1, { sessionId: sessionId() });
      expect(asked).toEqual(['Hello', 'Hi']);
    }, { turns });
  });
});
