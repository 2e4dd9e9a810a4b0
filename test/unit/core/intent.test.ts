import { evaluateQuestion, type RunFacts } from '../../../core/eval/evaluate-question';
import type { GoldenQuestion } from '../../../core/eval/golden-set';
import { renderMarkdown } from '../../../core/eval/render-report';
import { buildReport } from '../../../core/eval/report';
import { classifyIntent } from '../../../core/intent/classify-intent';
import { decideAfterModelFailure, decideByModel, decideByRules, intentTraceFragment, replyAnswer } from '../../../core/intent/decide-intent';
import { rulesReply, type EarlierTurn } from '../../../core/intent/rules-reply';
import { buildIntentReplyPrompt } from '../../../core/prompts/intent-reply-prompt';
import { normalizeRagTrace } from '../../../core/trace/normalize';
import { routePathOf } from '../../../core/trace/route-path';
import { outcomeOf } from '../../support/run-detail-fixture';

/*
 * Issue 44 §5: the intent rules. Greetings and thanks (both languages) need no retrieval; questions about the
 * conversation only in a session with history; every real question — short ones that start like a greeting or a
 * thanks included — needs retrieval.
 */

const first = { turnsBefore: 0 };
const later = { turnsBefore: 2 };
const intentOf = (question: string, context = first) => {
  const result = classifyIntent(question, context);
  return [result.intent, result.needs_retrieval, result.language];
};

describe('greetings and thanks need no retrieval, in either language', () => {
  test.each([
    ['你好', 'greeting', 'zh'],
    ['您好！', 'greeting', 'zh'],
    ['嗨～', 'greeting', 'zh'],
    ['早上好', 'greeting', 'zh'],
    ['在吗？', 'greeting', 'zh'],
    ['Hi', 'greeting', 'en'],
    ['hello there!', 'greeting', 'en'],
    ['Good morning 👋', 'greeting', 'en'],
    ['Hi, how are you?', 'greeting', 'en'],
    ['谢谢', 'thanks', 'zh'],
    ['谢谢！', 'thanks', 'zh'],
    ['好的，谢谢', 'thanks', 'zh'],
    ['非常感谢', 'thanks', 'zh'],
    ['Thanks!', 'thanks', 'en'],
    ['thank you very much', 'thanks', 'en'],
    ['OK, thanks a lot', 'thanks', 'en'],
  ])('%s → %s', (question, intent, language) => {
    expect(intentOf(question)).toEqual([intent, false, language]);
  });
});

describe('real questions are never taken for chit-chat', () => {
  test.each([
    'Hi-Fi 音箱多少钱?',
    'Hi-Fi 音箱多少钱',
    'thanks to what feature is X faster?',
    'Thanks to which setting is the router faster',
    'hi, what is the warranty of the Aurora X2?',
    '你好，Aurora X2 的保修期是多久？',
    '谢谢你的回答，那它支持 WPA3 吗？',
    'hello world program in python',
    'Hey Jude lyrics',
    'good morning routine',
    'thanks?',
    '早上好用的咖啡机有哪些',
    '感谢信怎么写',
    '你好吗这个词怎么翻译成英文',
    'What is the greeting message of the installer?',
  ])('%s → knowledge_query', (question) => {
    expect(intentOf(question)).toEqual(['knowledge_query', true, expect.any(String)]);
    expect(intentOf(question, later)[0]).toBe('knowledge_query');
  });
});

describe('questions about the conversation need a conversation', () => {
  test.each([
    ['what did I just ask?', 'last_question', 'en'],
    ['What was my previous question', 'last_question', 'en'],
    ['what was my first question?', 'first_question', 'en'],
    ['what did you just say?', 'last_answer', 'en'],
    ['What have we talked about so far?', 'topics', 'en'],
    ['我刚才问了什么？', 'last_question', 'zh'],
    ['我上一个问题是什么', 'last_question', 'zh'],
    ['我的第一个问题是什么？', 'first_question', 'zh'],
    ['你刚才说了什么', 'last_answer', 'zh'],
    ['我们聊了什么？', 'topics', 'zh'],
  ])('%s → conversation_meta (%s) with history, a knowledge query without', (question, topic, language) => {
    const withHistory = classifyIntent(question, later);
    expect([withHistory.intent, withHistory.topic, withHistory.needs_retrieval, withHistory.language]).toEqual(['conversation_meta', topic, false, language]);
    expect(intentOf(question, first)[0]).toBe('knowledge_query');
  });

  test.each(['what did I ask about the warranty?', '我刚才问的路由器支持 WPA3 吗？', 'what did the release notes say about X?', '你刚才说的保修期是几年？'])(
    '%s is a question about the documents (a follow-up), not about the conversation',
    (question) => {
      expect(intentOf(question, later)[0]).toBe('knowledge_query');
    },
  );
});

const turns: EarlierTurn[] = [
  { turn: 1, question: 'Aurora X2 路由器的保修期是多久？', answer: 'Aurora X2 路由器的保修期为两年[1]。', route: 'answer' },
  { turn: 2, question: 'Does it support WPA3?', answer: null, route: 'no_knowledge' },
];

describe('the rules reply in the question’s language, from the session’s turns', () => {
  test.each([
    ['你好', '你好！有什么关于知识库文档的问题，尽管问我。'],
    ['Hello!', 'Hello! Ask me anything about the documents in the knowledge base.'],
    ['谢谢', '不客气！还有其他问题随时问我。'],
    ['thanks', "You're welcome! Ask me if anything else comes up."],
    ['我刚才问了什么？', '你刚才问的是：“Does it support WPA3?”'],
    ['what did I just ask?', 'You just asked: "Does it support WPA3?"'],
    ['我的第一个问题是什么', '你的第一个问题是：“Aurora X2 路由器的保修期是多久？”'],
    ['what did you just say', 'I did not answer your last question ("Does it support WPA3?").'],
    ['what have we talked about?', 'So far you asked:\n1. Aurora X2 路由器的保修期是多久？\n2. Does it support WPA3?'],
  ])('%s → %s', (question, reply) => {
    expect(rulesReply(classifyIntent(question, { turnsBefore: turns.length }), turns)).toBe(reply);
  });

  test('a knowledge query has no reply', () => {
    expect(rulesReply(classifyIntent('Aurora X2 的保修期是多久？', later), turns)).toBeNull();
  });
});

describe('the decision, its trace and its answer', () => {
  const greeting = classifyIntent('你好', first);

  test('by the rules: the trace records intent and needs_retrieval beside the 59 fields', () => {
    const decision = decideByRules(greeting, [], 1);
    expect(normalizeRagTrace(intentTraceFragment(decision, '你好').fields)).toMatchInlineSnapshot(`
{
  "intent": {
    "confidence": 0.95,
    "decided_by": "rules",
    "intent": "greeting",
    "language": "zh",
    "rule": "greeting:你好",
  },
  "needs_retrieval": false,
  "query": "你好",
  "route": "answer",
  "tool_used": false,
}
`);
    expect(replyAnswer(decision)).toMatchObject({ text: '你好！有什么关于知识库文档的问题，尽管问我。', citations: [], model: 'intent-rules v1', prompt_version: 'intent-v1' });
  });

  test('by the model: its reply, or retrieval when it says the question needs it', () => {
    expect(decideByModel(greeting, { needs_retrieval: false, reply: ' 你好呀！' }, 'gpt-x', 3)).toMatchObject({ intent: 'greeting', decided_by: 'model', needs_retrieval: false, reply: '你好呀！', replied_by: 'gpt-x' });
    expect(decideByModel(greeting, { needs_retrieval: true, reply: '' }, 'gpt-x', 3)).toMatchObject({ intent: 'knowledge_query', decided_by: 'model', needs_retrieval: true, reply: null });
  });

  test('a failed model reply is the rules’ reply, and the record says why', () => {
    const decision = decideAfterModelFailure(greeting, [], 'timeout', 2);
    expect([decision.reply, decision.decided_by, decision.rule]).toEqual(['你好！有什么关于知识库文档的问题，尽管问我。', 'rules', "greeting:你好; the model's reply failed (timeout), the rules replied"]);
  });

  test('the model prompt names the pick and carries the turns', () => {
    const prompt = buildIntentReplyPrompt('我刚才问了什么？', 'conversation_meta', turns).content;
    expect(prompt).toContain('看起来是关于本次对话本身的问题');
    expect(prompt).toContain('[2] 问：Does it support WPA3?\n    答：（未回答）');
    expect(prompt.endsWith('用户的最新消息：我刚才问了什么？')).toBe(true);
  });
});

describe('ragtime eval counts intents (issue 44 §5)', () => {
  const facts = (trace: RunFacts['trace']): RunFacts => ({
    workflowId: 'w',
    status: 'completed',
    route: 'answer',
    retrievalStatus: null,
    answer: null,
    retrievals: [],
    modelCalls: 0,
    latencyMs: 1,
    error: null,
    trace,
  });
  const ask = (id: string, question: string): GoldenQuestion => ({ id, question, answerable: true, gold_doc_ids: [], gold_answers: [], expected_route: 'answer' });
  const greetingTrace = normalizeRagTrace(intentTraceFragment(decideByRules(classifyIntent('你好', first), [], 1), '你好').fields);

  test('a run answered without retrieval counts by its intent; a trace without intent fields is a knowledge query', () => {
    const results = [
      evaluateQuestion(ask('hello', '你好'), facts(greetingTrace)),
      evaluateQuestion(ask('real', 'Hi-Fi 音箱多少钱?'), facts({})),
      evaluateQuestion(ask('old', 'X 是什么？'), { ...facts(null), trace: undefined }),
    ];
    expect(results.map((r) => [r.id, r.intent, r.needs_retrieval])).toEqual([
      ['hello', 'greeting', false],
      ['real', 'knowledge_query', true],
      ['old', 'knowledge_query', true],
    ]);
    const report = buildReport({ set: 's', kb: 'k', provider: 'p', createdAt: 'now', results });
    expect(report.summary.intents).toEqual({ counts: { greeting: 1, thanks: 0, conversation_meta: 0, knowledge_query: 2 }, without_retrieval: 1 });
    expect(renderMarkdown(report)).toContain('| answered without retrieval (greeting / thanks / conversation) | 1 (1 / 0 / 0) |');
  });
});

describe('the route path of a run answered without retrieval (issue 44 §5)', () => {
  test('question → answer, the answer node saying why', () => {
    const trace = normalizeRagTrace(intentTraceFragment(decideByRules(classifyIntent('你好', first), [], 1), '你好').fields);
    const path = routePathOf(outcomeOf({ trace, retrieval_status: null }), '你好');
    expect(path.nodes.map((node) => [node.label, node.detail])).toEqual([
      ['question', '你好'],
      ['answer', 'without retrieval: greeting'],
    ]);
  });
});
