import { answerConversation, condenseFallback, condensedByModel, conversationRecord, openTurn } from '../../../core/conversation/open-turn';
import { parseConfig } from '../../../core/config';
import { isRagError } from '../../../core/errors';
import { buildAnswerPrompt, buildAnswerRepairPrompt } from '../../../core/prompts/answer-prompt';
import { ConversationRecord, type SessionTurn } from '../../../core/schemas/conversation';

/* How a run of turn n starts (issue 25 §1): the window, whether to condense, the record, what the writer sees. */

const turn = (n: number, question: string, answer: string | null = `answer ${n}`): SessionTurn => ({
  turn: n,
  question,
  standaloneQuestion: question,
  answer,
  route: answer === null ? 'clarify' : 'answer',
  workflowId: `rag-s-${n}`,
});
const Q1 = 'Aurora X2 路由器的保修期是多久？';

describe('openTurn', () => {
  test('no earlier turns: the question as it is, no condensing', () => {
    expect(openTurn('它支持 WPA3 吗？', [], 6)).toEqual({
      window: { turns: [], dropped: 0, dropReason: null },
      asIs: { standalone: '它支持 WPA3 吗？', condensedBy: 'none', why: 'no earlier turns' },
    });
  });

  test('a question that refers to nothing stands alone, history or not', () => {
    expect(openTurn('Nimbus C1 的续航是多久？', [turn(1, Q1)], 6).asIs).toEqual({ standalone: 'Nimbus C1 的续航是多久？', condensedBy: 'none', why: 'the question stands alone' });
  });

  test('a follow-up is left to the condenser, with the window of the last SESSION_TURNS turns', () => {
    const turns = [1, 2, 3, 4].map((n) => turn(n, `${Q1} ${n}`));
    const opening = openTurn('它支持 WPA3 吗？', turns, 3);
    expect(opening.asIs).toBeNull();
    expect(opening.window.turns.map((t) => t.turn)).toEqual([2, 3, 4]);
    expect(opening.window).toMatchObject({ dropped: 1, dropReason: 'older than the last 3 turns (SESSION_TURNS=3)' });
  });

  test('SESSION_TURNS=0: the writer sees no turn, yet retrieval still gets the standalone question', () => {
    const opening = openTurn('它支持 WPA3 吗？', [turn(1, Q1)], 0);
    expect(opening.asIs).toBeNull();
    expect(opening.window.turns).toEqual([]);
    expect(answerConversation('它支持 WPA3 吗？', opening.window)).toBeNull();
  });
});

describe('condensations and the record', () => {
  test("the model's rewrite is used; a reply that says it stands alone, or repeats it, keeps the question", () => {
    expect(condensedByModel('它支持 WPA3 吗？', { standalone_question: ' Aurora X2 路由器支持 WPA3 吗？ ', depends_on_history: true })).toEqual({
      standalone: 'Aurora X2 路由器支持 WPA3 吗？',
      condensedBy: 'model',
      why: 'FAST_MODEL rewrote it from the earlier turns',
    });
    expect(condensedByModel('它支持 WPA3 吗？', { standalone_question: 'Aurora X2 路由器支持 WPA3 吗？', depends_on_history: false }).standalone).toBe('它支持 WPA3 吗？');
    expect(condensedByModel('它支持 WPA3 吗？', { standalone_question: '它支持 WPA3 吗？', depends_on_history: true }).why).toBe('FAST_MODEL found that the question stands alone');
  });

  test('a failure falls back to the question as asked, with the reason', () => {
    expect(condenseFallback('它呢？', '503 Service Unavailable')).toEqual({
      standalone: '它呢？',
      condensedBy: 'fallback',
      why: 'condensing failed (503 Service Unavailable); the question is used as asked',
    });
  });

  test('the record names the turns before, the turns used, the dropped ones, and how the question was read', () => {
    const turns = [turn(1, Q1), turn(2, 'Nimbus C1 的续航是多久？'), turn(3, '它防水吗？')];
    const opening = openTurn('价格呢？', turns, 2);
    const record = conversationRecord('价格呢？', turns.length, opening.window, { standalone: 'Nimbus C1的价格呢？', condensedBy: 'offline_rules', why: 'asked "价格" of "Nimbus C1" (turn 3)' });
    expect(ConversationRecord.parse(record)).toEqual({
      question: '价格呢？',
      turnsBefore: 3,
      turnsUsed: [2, 3],
      turnsDropped: 1,
      dropReason: 'older than the last 2 turns (SESSION_TURNS=2)',
      standaloneQuestion: 'Nimbus C1的价格呢？',
      condensedBy: 'offline_rules',
      why: 'asked "价格" of "Nimbus C1" (turn 3)',
    });
  });
});

describe('what the answer writer sees', () => {
  const conversation = { asked: '它支持 WPA3 吗？', turns: [{ turn: 1, question: Q1, answer: '保修期为两年[1]。' }] };

  test('a first turn: the prompt is exactly as before conversations', () => {
    expect(buildAnswerPrompt(Q1, '[1] x')).toEqual(buildAnswerPrompt(Q1, '[1] x', undefined));
    expect(buildAnswerPrompt(Q1, '[1] x', { asked: Q1, turns: [] }).content).toBe(buildAnswerPrompt(Q1, '[1] x').content);
  });

  test('a follow-up: the earlier turns and the words asked come first, not as evidence; the standalone question stays the question', () => {
    const { content } = buildAnswerPrompt('Aurora X2 路由器支持 WPA3 吗？', '[1] Aurora X2 路由器支持 WPA3 加密。', conversation);
    expect(content.startsWith('对话历史（较早的轮次，只用于理解用户问题中的指代和省略，不能作为回答的依据）：\n[1] 问：Aurora X2 路由器的保修期是多久？\n    答：保修期为两年[1]。\n\n用户这一轮的原话：它支持 WPA3 吗？\n\n')).toBe(true);
    expect(content).toContain('用户问题：Aurora X2 路由器支持 WPA3 吗？');
  });

  test('English follow-ups get the English frame; long and missing answers are shortened and said', () => {
    const english = { asked: 'and the X3?', turns: [{ turn: 4, question: 'What is the warranty of the Aurora X2?', answer: 'x'.repeat(400) }, { turn: 5, question: 'Which one?', answer: null }] };
    const { content } = buildAnswerPrompt('What is the warranty of the Aurora X3?', '[1] y', english);
    expect(content).toContain(`[4] Q: What is the warranty of the Aurora X2?\n    A: ${'x'.repeat(300)}…\n[5] Q: Which one?\n    A: (not answered)`);
    expect(content).toContain("The user's words this turn: and the X3?");
  });

  test('the repair prompt carries the conversation too', () => {
    const verification = { status: 'unverified', invalid_citations: [], uncited_sentences: ['x'] } as never;
    expect(buildAnswerRepairPrompt('Aurora X2 路由器支持 WPA3 吗？', '[1] y', {}, verification, conversation).content).toContain('用户这一轮的原话：它支持 WPA3 吗？');
  });
});

describe('SESSION_TURNS', () => {
  test('default 6; 0 to 50 read; anything else refused, naming the range', () => {
    expect(parseConfig({}).conversation.sessionTurns).toBe(6);
    expect(parseConfig({ SESSION_TURNS: '0' }).conversation.sessionTurns).toBe(0);
    expect(parseConfig({ SESSION_TURNS: '50' }).conversation.sessionTurns).toBe(50);
    for (const value of ['51', '-1', '2.5', 'six']) {
      let message = '';
      try {
        parseConfig({ SESSION_TURNS: value });
      } catch (error) {
        if (!isRagError(error)) throw error;
        message = error.message;
      }
      expect(message).toContain('SESSION_TURNS');
    }
  });
});
