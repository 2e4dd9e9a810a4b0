import { createSessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import { offlineCondense } from '../../core/conversation/offline-condense';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { chunk, grade, plannerResult, retrievalTable } from '../support/scenario';
import { openWorkflowEnv, sessionId, withWorker, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * Conversations (issue 25 §1, docs/design/conversations.md) on the real dev server, with the real conversation
 * activities and session turn store (SQLite in memory) and scripted models: a follow-up is made to stand alone
 * before the graph runs on it, the answer writer sees the person's words and the window of earlier turns, each run's
 * turn is recorded before it settles, and no run fails because of its conversation. And questions that need no
 * retrieval (issue 44 §5): greetings, thanks and questions about the conversation itself.
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
const Q2 = '它支持 WPA3 吗？';
const Q2_STANDALONE = 'Aurora X2 路由器支持 WPA3 吗？';
const Q3 = '价格呢？';
const Q3_STANDALONE = 'Aurora X2 路由器的价格呢？';
const leaf = (text: string, n: number): Chunk => chunk(text, { chunk_id: `aurora.md::p1::l3::${n}`, filename: 'aurora.md', page_number: 1 });
const warranty = leaf('Aurora X2 路由器的保修期为两年。', 1);
const wpa3 = leaf('Aurora X2 路由器支持 WPA3 加密。', 2);
const price = leaf('Aurora X2 路由器的建议零售价为 899 元。', 3);
const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);
const simple = plannerResult('simple', '单一事实问题', []);

const script = (extra: Partial<AdapterScript> = {}): AdapterScript => ({
  retrieve: retrievalTable({ [Q1]: [warranty], [Q2_STANDALONE]: [wpa3], [Q3_STANDALONE]: [price], [Q2]: [wpa3] }),
  planner: simple,
  grades: { [Q1]: [sure, sure], [Q2_STANDALONE]: [sure], [Q3_STANDALONE]: [sure], [Q2]: [sure] },
  ...extra,
});

describe('follow-up questions across the turns of a session', () => {
  test('a three-turn conversation: each follow-up retrieves for its standalone question; the writer sees the turns before it', async () => {
    await withWorker(env, script(), async (rag, calls, _queue, answerCalls) => {
      const session = sessionId();
      const first = await rag.ask(Q1, { sessionId: session });
      expect(first.conversation).toEqual({
        question: Q1,
        turnsBefore: 0,
        turnsUsed: [],
        turnsDropped: 0,
        dropReason: null,
        standaloneQuestion: Q1,
        condensedBy: 'none',
        why: 'no earlier turns',
      });
      const second = await rag.ask(Q2, { sessionId: session });
      expect(second.conversation).toMatchObject({ question: Q2, turnsBefore: 1, turnsUsed: [1], standaloneQuestion: Q2_STANDALONE, condensedBy: 'offline_rules' });
      expect(second.conversation?.why).toContain('它');
      const third = await rag.ask(Q3, { sessionId: session });
      expect(third.conversation).toMatchObject({ turnsBefore: 2, turnsUsed: [1, 2], standaloneQuestion: Q3_STANDALONE, condensedBy: 'offline_rules' });
      expect(third.answer?.text).toContain('899');

      expect(calls.retrieval).toEqual([Q1, Q2_STANDALONE, Q3_STANDALONE]);
      expect(answerCalls.map((call) => [call.question, call.conversation?.asked, call.conversation?.turns.map((turn) => turn.turn)])).toEqual([
        [Q1, undefined, undefined],
        [Q2_STANDALONE, Q2, [1]],
        [Q3_STANDALONE, Q3, [1, 2]],
      ]);
      expect(answerCalls[2]?.conversation?.turns[0]).toEqual({ turn: 1, question: Q1, answer: first.answer?.text });
      // The store holds the three turns, in order, with what each retrieved for and answered.
      expect((await turns.turnsOf('', session)).map((turn) => [turn.turn, turn.question, turn.standaloneQuestion, turn.route, turn.workflowId])).toEqual([
        [1, Q1, Q1, 'answer', first.workflowId],
        [2, Q2, Q2_STANDALONE, 'answer', second.workflowId],
        [3, Q3, Q3_STANDALONE, 'answer', third.workflowId],
      ]);
      // The progress stream says the follow-up was read with its history.
      const labels = (await rag.getProgress(second.workflowId)).map((step) => `${step.label} ${step.detail}`);
      expect(labels[0]).toBe(`结合对话历史理解追问 独立问题: ${Q2_STANDALONE}（参考前 1 轮）`);
    }, { turns });
  });

  test("a session's turns are its tenant's: the same session id under another tenant starts afresh", async () => {
    await withWorker(env, script(), async (rag) => {
      const session = sessionId();
      await rag.ask(Q1, { sessionId: session, tenant: 'acme' });
      const other = await rag.ask(Q2, { sessionId: session, tenant: 'globex' });
      expect(other.conversation).toMatchObject({ turnsBefore: 0, standaloneQuestion: Q2, condensedBy: 'none', why: 'no earlier turns' });
      expect(await turns.turnsOf('acme', session)).toHaveLength(1);
      expect(await turns.turnsOf('globex', session)).toHaveLength(1);
      expect(await turns.turnsOf('', session)).toHaveLength(0);
    }, { turns });
  });

  test('a condensation that fails falls back to the question as asked, and the run answers', async () => {
    await withWorker(env, script({ condense: () => new Error('FAST_MODEL is down') }), async (rag, calls) => {
      const session = sessionId();
      await rag.ask(Q1, { sessionId: session });
      const second = await rag.ask(Q2, { sessionId: session });
      expect(second.status).toBe('completed');
      expect(second.conversation).toMatchObject({ standaloneQuestion: Q2, condensedBy: 'fallback', turnsUsed: [1] });
      expect(second.conversation?.why).toContain('FAST_MODEL is down');
      expect(calls.retrieval).toEqual([Q1, Q2]);
    }, { turns });
  });

  test('a model that condenses: its rewrite is what retrieval uses, and one that finds the question alone is kept as asked', async () => {
    const replies = [{ standalone_question: Q2_STANDALONE, depends_on_history: true }, { standalone_question: Q3, depends_on_history: false }];
    await withWorker(env, script({ condense: () => replies.shift() }), async (rag, calls) => {
      const session = sessionId();
      await rag.ask(Q1, { sessionId: session });
      const second = await rag.ask(Q2, { sessionId: session });
      expect(second.conversation).toMatchObject({ standaloneQuestion: Q2_STANDALONE, condensedBy: 'model', why: 'FAST_MODEL rewrote it from the earlier turns' });
      const third = await rag.ask(Q1.replace('保修期', '保修期'), { sessionId: session });
      // Not a follow-up (it refers to nothing): no model call, the question as it is.
      expect(third.conversation).toMatchObject({ condensedBy: 'none', why: 'the question stands alone' });
      expect(replies).toHaveLength(1);
      expect(calls.retrieval).toEqual([Q1, Q2_STANDALONE, Q1]);
    }, { turns });
  });

  test('a session store that cannot be read makes the run a first turn, said why; the run still answers', async () => {
    // A real store, closed: every read and insert fails as a lost database does.
    const lost = createSessionTurnStore({ sqliteFile: ':memory:' });
    await lost.migrate();
    await lost.close();
    await withWorker(env, script(), async (rag) => {
      const outcome = await rag.ask(Q2, { sessionId: sessionId() });
      expect(outcome).toMatchObject({ status: 'completed', route: 'answer' });
      expect(outcome.conversation).toMatchObject({ turnsBefore: 0, standaloneQuestion: Q2, condensedBy: 'fallback' });
      expect(outcome.conversation?.why).toMatch(/^the session's earlier turns could not be read \(.+\); the question is used as asked$/);
    }, { turns: lost });
  }, 60_000);

  test('SESSION_TURNS bounds the window: older turns are dropped, and the record says so', async () => {
    await withWorker(env, script({ grades: { [Q1]: [sure, sure, sure], [Q2_STANDALONE]: [sure] } }), async (rag, _calls, _queue, answerCalls) => {
      const session = sessionId();
      await rag.ask(Q1, { sessionId: session });
      await rag.ask(Q1, { sessionId: session });
      await rag.ask(Q1, { sessionId: session });
      const fourth = await rag.ask(Q2, { sessionId: session });
      expect(fourth.conversation).toMatchObject({ turnsBefore: 3, turnsUsed: [2, 3], turnsDropped: 1, dropReason: 'older than the last 2 turns (SESSION_TURNS=2)' });
      expect(answerCalls.at(-1)?.conversation?.turns.map((turn) => turn.turn)).toEqual([2, 3]);
    }, { turns, sessionTurns: 2 });
  });

  test('a run that asks a person records its turn when it ends, with the clarified answer; the next turn reads it', async () => {
    const askModel = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请问是哪一款路由器？', hitl_options: ['Aurora X2', 'Aurora X3'] });
    const vague = '路由器的保修期是多久？';
    const refined = `Aurora X2：${vague}`;
    const hitlScript = script({
      retrieve: retrievalTable({ [vague]: [warranty], [refined]: [warranty], [Q2_STANDALONE]: [wpa3], [`${refined.replace('Aurora X2：', '')}`]: [warranty] }),
      grades: { [vague]: [askModel], [refined]: [sure], [Q2_STANDALONE]: [sure] },
    });
    const session = sessionId();
    const answered = await withWorker(env, hitlScript, async (rag) => {
      const waiting = await rag.ask(vague, { sessionId: session });
      expect(waiting.status).toBe('awaiting_input');
      // Not recorded while it waits: the turn is not over.
      expect(await turns.turnsOf('', session)).toHaveLength(0);
      const settled = await rag.answer(waiting.workflowId, 'Aurora X2');
      expect(settled.status).toBe('completed');
      return settled;
    }, { turns });
    const recorded = await turns.turnsOf('', session);
    expect(recorded.map((turn) => [turn.question, turn.route, turn.answer])).toEqual([[vague, 'answer', answered.answer?.text]]);
    // The next turn reads it: its follow-up is asked of the clarified question's subject.
    const standalone = offlineCondense(Q2, recorded).standalone;
    expect(standalone).not.toBe(Q2);
    const next = script({ retrieve: retrievalTable({ [standalone]: [wpa3] }), grades: { [standalone]: [sure] } });
    await withWorker(env, next, async (rag, _calls, _queue, answerCalls) => {
      const followUp = await rag.ask(Q2, { sessionId: session });
      expect(followUp.conversation).toMatchObject({ turnsBefore: 1, turnsUsed: [1], standaloneQuestion: standalone, condensedBy: 'offline_rules' });
      expect(answerCalls[0]?.conversation?.turns).toEqual([{ turn: 1, question: vague, answer: answered.answer?.text }]);
    }, { turns });
  });
});

const HIFI = 'Hi-Fi 音箱多少钱?';
const hifi: Chunk = chunk('Hi-Fi 音箱的建议零售价为 1299 元。', { chunk_id: 'hifi.md::p1::l3::1', filename: 'hifi.md', page_number: 1 });

const intentScript = (extra: Partial<AdapterScript> = {}): AdapterScript => ({
  retrieve: retrievalTable({ [Q1]: [warranty], [HIFI]: [hifi], Hi: [] }),
  grades: { [Q1]: [sure], [HIFI]: [sure] },
  planner: simple,
  ...extra,
});

/*
 * Issue 44 §5: a greeting, a thanks or a question about the conversation ends without a retrieval activity — no
 * planner, retriever, grader or answer writer is called — its answer in the question's language, its trace saying
 * `intent` and `needs_retrieval: false`; a real question runs the graph as before, its trace unchanged.
 */
describe('questions that need no retrieval', () => {
  test('a greeting ends without a retrieval activity; the trace says intent and needs_retrieval', async () => {
    await withWorker(env, intentScript(), async (rag, calls, _queue, answerCalls) => {
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
    await withWorker(env, intentScript(), async (rag, calls) => {
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

  test('a session store that cannot be read: a greeting is still answered by the rules, without retrieval', async () => {
    const lost = createSessionTurnStore({ sqliteFile: ':memory:' });
    await lost.migrate();
    await lost.close();
    await withWorker(env, intentScript(), async (rag, calls) => {
      const outcome = await rag.ask('谢谢', { sessionId: sessionId() });
      expect([outcome.route, outcome.answer?.text, outcome.conversation?.condensedBy, outcome.rag_trace?.needs_retrieval]).toEqual(['answer', '不客气！还有其他问题随时问我。', 'fallback', false]);
      expect(calls.retrieval).toEqual([]);
    }, { turns: lost });
  }, 60_000);

  test('a short real question that starts like a greeting is retrieved for', async () => {
    await withWorker(env, intentScript(), async (rag, calls) => {
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
    await withWorker(env, intentScript({ intentReply }), async (rag, calls) => {
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
