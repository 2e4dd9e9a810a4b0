import { createSessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import { offlineCondense } from '../../core/conversation/offline-condense';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { chunk, grade, plannerResult, retrievalTable } from '../support/scenario';
import { openWorkflowEnv, sessionId, withWorker, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * Conversations (issue 25 §1, docs/design/conversations.md) on the real dev server, with the real conversation
 * activities and session turn store (SQLite in memory) and scripted models: a follow-up is made to stand alone
 * before the graph runs on it, the answer writer sees the person's words and the window of earlier turns, each run's
 * turn is recorded before it settles, and no run fails because of its conversation.
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
