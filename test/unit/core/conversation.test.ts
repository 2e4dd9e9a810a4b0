import { historyReference } from '../../../core/conversation/history-reference';
import { historyWindow } from '../../../core/conversation/history-window';
import { offlineCondense } from '../../../core/conversation/offline-condense';
import { subjectOf } from '../../../core/conversation/subject-of';
import { buildCondensePrompt } from '../../../core/prompts/condense-prompt';
import type { SessionTurn } from '../../../core/schemas/conversation';

/*
 * Follow-up questions (issue 25 §1): the pure rules the offline provider condenses with, and the answer step's
 * window of earlier turns. Questions are the ones of samples/golden/products and samples/knowledge.
 */

const turn = (n: number, question: string, answer: string | null = '……', standaloneQuestion = question): SessionTurn => ({
  turn: n,
  question,
  standaloneQuestion,
  answer,
  route: answer === null ? 'no_knowledge' : 'answer',
  workflowId: `rag-s-${n}`,
});

describe('subjectOf', () => {
  test.each([
    ['Aurora X2 路由器的保修期是多久？', 'Aurora X2 路由器'],
    ['请问 Nimbus C1 摄像头的存储卡最大多少？', 'Nimbus C1 摄像头'],
    ['丹瑾是什么属性？', '丹瑾'],
    ['杨群是哪里人？', '杨群'],
    ['天津犹太会堂在什么地方？', '天津犹太会堂'],
    ['范廷颂是什么时候被任为主教的？', '范廷颂'],
    ['哪个国家是世界杯冠军？', null],
    ['怎么重置管理密码？', null],
    ['What is new in Orbit CLI 2.1?', 'Orbit CLI 2.1'],
    ['How do I reset the Aurora X2 admin password?', 'Aurora X2'],
    ['how do i reset it?', null],
  ])('%s → %s', (question, subject) => {
    expect(subjectOf(question)).toBe(subject);
  });
});

describe('historyReference: only what refers back', () => {
  test.each([
    ['它的保修期呢？', { kind: 'pronoun', marker: '它的' }],
    ['这款支持 WPA3 吗？', { kind: 'pronoun', marker: '这款' }],
    ['那 Nimbus C1 呢？', { kind: 'new_subject', subject: 'Nimbus C1' }],
    ['价格呢？', { kind: 'new_attribute', attribute: '价格' }],
    ['Does it support WPA3?', { kind: 'pronoun', marker: 'it' }],
    ['and the X3?', { kind: 'new_subject', subject: 'X3' }],
    ['What about the price?', { kind: 'new_attribute', attribute: 'price' }],
    ['Aurora X2 路由器的保修期是多久？', null],
    ['What is new in Orbit CLI 2.1?', null],
  ])('%s', (question, reference) => {
    expect(historyReference(question)).toEqual(reference);
  });
});

describe('offlineCondense: the documented rules (docs/offline-policy.md)', () => {
  const history = [turn(1, 'Aurora X2 路由器的保修期是多久？')];

  test.each([
    ['它的价格是多少？', 'Aurora X2 路由器的价格是多少？', 'resolved "它的" to "Aurora X2 路由器" (turn 1)'],
    ['那 Nimbus C1 摄像头呢？', 'Nimbus C1 摄像头的保修期是多久？', 'asked the question of "Aurora X2 路由器" of "Nimbus C1 摄像头" (turn 1)'],
    ['价格呢？', 'Aurora X2 路由器的价格呢？', 'asked "价格" of "Aurora X2 路由器" (turn 1)'],
  ])('%s → %s', (question, standalone, why) => {
    expect(offlineCondense(question, history)).toEqual({ standalone, condensedBy: 'offline_rules', why });
  });

  test('a subject said in full in an earlier turn is kept in full ("Aurora X2" of turn 2 is turn 1\'s "Aurora X2 路由器")', () => {
    const turns = [turn(1, 'Aurora X2 路由器的保修期是多久？'), turn(2, 'Aurora X2 路由器支持 WPA3 吗？')];
    expect(offlineCondense('价格呢？', turns)).toEqual({ standalone: 'Aurora X2 路由器的价格呢？', condensedBy: 'offline_rules', why: 'asked "价格" of "Aurora X2 路由器" (turn 2)' });
  });

  test('English: a pronoun, a new subject, a new attribute', () => {
    const english = [turn(1, 'What is new in Orbit CLI 2.1?')];
    expect(offlineCondense('Is it free?', english).standalone).toBe('Is Orbit CLI 2.1 free?');
    expect(offlineCondense('What are its flags?', english).standalone).toBe("What are Orbit CLI 2.1's flags?");
    expect(offlineCondense('and Orbit CLI 2.2?', english).standalone).toBe('What is new in Orbit CLI 2.2?');
    expect(offlineCondense('and the license?', english).standalone).toBe('What about the license of Orbit CLI 2.1?');
  });

  test('the subject comes from the latest turn that has one, by its standalone question', () => {
    const turns = [turn(1, 'Aurora X2 路由器的保修期是多久？'), turn(2, '那 Nimbus C1 摄像头呢？', '1 年', 'Nimbus C1 摄像头的保修期是多久？'), turn(3, '谢谢', null)];
    expect(offlineCondense('它支持多大的存储卡？', turns)).toEqual({
      standalone: 'Nimbus C1 摄像头支持多大的存储卡？',
      condensedBy: 'offline_rules',
      why: 'resolved "它" to "Nimbus C1 摄像头" (turn 2)',
    });
  });

  test('left as it is: no history, a question that stands alone, nothing to resolve it with', () => {
    expect(offlineCondense('它的保修期呢？', [])).toEqual({ standalone: '它的保修期呢？', condensedBy: 'none', why: 'no earlier turns' });
    expect(offlineCondense('Nimbus C1 摄像头的价格是多少？', history)).toMatchObject({ condensedBy: 'none', why: 'the question stands alone' });
    expect(offlineCondense('它的保修期呢？', [turn(1, '你好', null)])).toMatchObject({ condensedBy: 'none', why: 'it refers back, but no earlier turn names a subject' });
  });
});

describe('historyWindow: the last SESSION_TURNS turns, oldest first', () => {
  const turns = [3, 1, 2, 5, 4].map((n) => turn(n, `q${n}`));
  test('all of them when they fit', () => {
    expect(historyWindow(turns, 6)).toEqual({ turns: [1, 2, 3, 4, 5].map((n) => turn(n, `q${n}`)), dropped: 0, dropReason: null });
  });
  test('the older ones dropped, and why', () => {
    expect(historyWindow(turns, 2)).toEqual({ turns: [turn(4, 'q4'), turn(5, 'q5')], dropped: 3, dropReason: 'older than the last 2 turns (SESSION_TURNS=2)' });
    expect(historyWindow(turns, 0).turns).toEqual([]);
  });
});

test('the condensation prompt: the history by standalone questions, answers cut, the new question last', () => {
  const prompt = buildCondensePrompt('它的价格呢？', [turn(1, 'Aurora X2 路由器的保修期是多久？', '2 年保修[1]。'), turn(2, '你好', null)]);
  expect(prompt.role).toBe('user');
  expect(prompt.content).toContain('[1] 问：Aurora X2 路由器的保修期是多久？\n    答：2 年保修[1]。\n[2] 问：你好\n    答：（未回答）');
  expect(prompt.content.endsWith('最新问题：它的价格呢？')).toBe(true);
});
