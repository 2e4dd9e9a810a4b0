import type { Intent, IntentRecord, MetaTopic } from '../schemas/intent';
import { textLanguage } from '../text/language';

/*
 * The intent rules (issue 44 §5): a question needs no retrieval only when the whole of it is a short greeting, a
 * thanks, or — in a session that has earlier turns — a question about the conversation itself ("what did I just
 * ask?", 我刚才问了什么？). Conservative on purpose: a real question must never be taken for chit-chat, so the rules
 * match whole phrases only (after punctuation is stripped), never a prefix — "Hi-Fi 音箱多少钱?", "hi, what is X?" and
 * "thanks to what feature is X faster?" are knowledge queries. Anything not matched needs retrieval. Pure.
 */

/** The version of these rules, recorded as the writer of a rules reply. */
export const INTENT_RULES_VERSION = 'intent-rules v1';

/** Longer than this (in code points, punctuation stripped) is never chit-chat. */
const MAX_CHAT_LENGTH = 40;

export type IntentRuleResult = IntentRecord & { needs_retrieval: boolean; topic: MetaTopic | null };

/** Punctuation, symbols and emoji around and between the words of a short message ("你好！", "thanks :)", "hi 👋"). */
const NOISE = /[\p{P}\p{S}\p{Extended_Pictographic}\uFE0F\u200D]+/gu;

/** Lower case, full-width folded (NFKC), punctuation and emoji dropped, whitespace collapsed. */
export function normalizeChat(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(NOISE, ' ').replace(/\s+/g, ' ').trim();
}

const EN_GREETING = /^(?:(?:hi|hello|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening|day))(?: there| everyone| all| ragtime| bot)?(?: how are you(?: doing)?(?: today)?)?|how are you(?: doing)?(?: today)?|how s it going|nice to meet you)$/;
const ZH_GREETING = /^(?:你好|您好|嗨|哈喽|哈啰|哈罗|早上好|上午好|中午好|下午好|晚上好|早安|午安|晚安|早|大家好|在吗|在不在|你好吗|最近好吗)(?:呀|啊|哇|哦|吗)?(?: ?(?:你好|在吗|你好吗))?$/;
const EN_ACK = '(?:(?:ok|okay|great|perfect|cool|nice|awesome|got it|i see|understood|alright|all right) )?';
const EN_THANKS = new RegExp(`^${EN_ACK}(?:thanks|thank you|thank u|thx|ty|many thanks|cheers)(?: (?:so much|very much|a lot|a bunch|again|for (?:the|your) (?:help|answer|reply)))?$`);
const ZH_ACK = '(?:(?:好的|好|嗯|嗯嗯|ok|明白了|懂了|收到|知道了|了解|太好了) ?)?';
const ZH_THANKS = new RegExp(`^${ZH_ACK}(?:谢谢|谢谢你|谢谢您|多谢|多谢了|感谢|感谢你|感谢您|非常感谢|十分感谢|太感谢了|太谢谢了|谢啦|谢了|辛苦了|辛苦你了)(?:啦|了|哈|呀)?(?: ?(?:谢谢|辛苦了))?$`);

/** Questions about the conversation itself, each with what it asks about. Only asked in a session with history. */
const META_RULES: ReadonlyArray<{ topic: MetaTopic; pattern: RegExp }> = [
  { topic: 'last_question', pattern: /^what (?:did|was it) i (?:just |last )?(?:ask|asked|say)(?: (?:you|before|earlier|last|just now))?$/ },
  { topic: 'last_question', pattern: /^what was my (?:last|previous) (?:question|message)$/ },
  { topic: 'last_question', pattern: /^(?:can you )?repeat my (?:last |previous )?question(?: please)?$/ },
  { topic: 'first_question', pattern: /^what was my first question$/ },
  { topic: 'last_answer', pattern: /^what did you (?:just |last )?(?:say|answer|tell me|reply)$/ },
  { topic: 'last_answer', pattern: /^what was your (?:last |previous )?(?:answer|reply)$/ },
  { topic: 'topics', pattern: /^what (?:have we|did we|were we) (?:been )?(?:talk|talked|talking|discuss|discussed|discussing) about(?: so far)?$/ },
  { topic: 'topics', pattern: /^what (?:questions )?have i asked(?: you)?(?: so far)?$/ },
  { topic: 'last_question', pattern: /^我(?:刚才|刚刚|上一句|上次|之前|前面)(?:问|说)(?:了|的)?(?:什么|啥|是什么)(?:问题)?(?:来着)?$/ },
  { topic: 'last_question', pattern: /^我(?:的)?上一个问题(?:是)?(?:什么|啥)(?:来着)?$/ },
  { topic: 'first_question', pattern: /^我(?:的)?第一个问题(?:是)?(?:什么|啥)(?:来着)?$/ },
  { topic: 'last_answer', pattern: /^你(?:刚才|刚刚|上一句|之前)(?:说|回答|答)(?:了|的)?(?:什么|啥|是什么)$/ },
  { topic: 'topics', pattern: /^我们(?:刚才|之前|到现在|目前为止)?(?:都)?(?:聊|谈|讨论)(?:了|过)(?:些|哪些)?(?:什么|啥)$/ },
  { topic: 'topics', pattern: /^我(?:都)?问过(?:你)?(?:哪些|什么|些什么)(?:问题)?$/ },
];

const record = (question: string, intent: Intent, rule: string | null, confidence: number, topic: MetaTopic | null = null): IntentRuleResult => ({
  intent,
  confidence,
  language: textLanguage(question),
  decided_by: 'rules',
  rule,
  needs_retrieval: intent === 'knowledge_query',
  topic,
});

/**
 * The intent of a question by the rules. `turnsBefore`: the session's completed turns before it (a conversation
 * question is only one when there is a conversation to ask about).
 */
export function classifyIntent(question: string, context: { turnsBefore: number }): IntentRuleResult {
  const text = normalizeChat(question);
  const asked = /[?？]/.test(question);
  // Exact phrases are sure; the default is not a guess either: anything else goes to the knowledge base.
  if (text === '' || [...text].length > MAX_CHAT_LENGTH) return record(question, 'knowledge_query', null, 1);
  // A greeting or a thanks is never asked with a question mark ("thanks?" is unclear; "how are you?" is a greeting).
  if (EN_GREETING.test(text) || ZH_GREETING.test(text)) {
    if (!asked || /how are you|how s it going|你好吗|最近好吗|在吗|在不在/.test(text)) return record(question, 'greeting', `greeting:${text}`, 0.95);
  }
  if (!asked && (EN_THANKS.test(text) || ZH_THANKS.test(text))) return record(question, 'thanks', `thanks:${text}`, 0.95);
  if (context.turnsBefore > 0) {
    const meta = META_RULES.find((rule) => rule.pattern.test(text.replace(/ (?:please|请)$/, '')));
    if (meta) return record(question, 'conversation_meta', `conversation_meta:${meta.topic}`, 0.9, meta.topic);
  }
  return record(question, 'knowledge_query', null, 1);
}

/**
 * Whether the rules could answer the question without retrieval in some session (a greeting, a thanks, or a question
 * about the conversation if it has turns): only such a run asks the intent patch, so a run of any other question
 * records the same history as before (workflows/start-patches.ts).
 *
 * WARNING: the workflow calls this to decide whether to ask INTENT_PATCH, so it is part of the recorded histories. A
 * rule change that stops matching a message makes the histories of runs of that message fail replay (their marker is
 * no longer asked for); adding a phrase is safe (a history without the marker replays as a knowledge query).
 */
export const mayNeedNoRetrieval = (question: string): boolean => !classifyIntent(question, { turnsBefore: 1 }).needs_retrieval;
