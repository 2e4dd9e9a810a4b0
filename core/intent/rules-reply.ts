import type { SessionTurn } from '../schemas/conversation';
import type { MetaTopic } from '../schemas/intent';
import type { TextLanguage } from '../text/language';
import type { IntentRuleResult } from './classify-intent';

/*
 * The rules' replies to a question that needs no retrieval (issue 44 §5), in the question's language: a greeting or
 * a thanks back, and for a question about the conversation, what the session's earlier turns say (the person's own
 * questions, the last answer). Pure; the model writes these instead when the intent step is the model's.
 */

export type EarlierTurn = Pick<SessionTurn, 'turn' | 'question' | 'answer' | 'route'>;

const GREETING: Record<TextLanguage, string> = {
  en: 'Hello! Ask me anything about the documents in the knowledge base.',
  zh: '你好！有什么关于知识库文档的问题，尽管问我。',
};
const THANKS: Record<TextLanguage, string> = {
  en: "You're welcome! Ask me if anything else comes up.",
  zh: '不客气！还有其他问题随时问我。',
};

/** Long answers are cut: the reply reminds the person, it does not repeat a whole page. */
const cut = (text: string, limit = 300): string => ([...text].length > limit ? `${[...text].slice(0, limit).join('')}…` : text);

function metaReply(topic: MetaTopic, language: TextLanguage, turns: readonly EarlierTurn[]): string {
  const zh = language === 'zh';
  const last = turns.at(-1);
  if (!last) return zh ? '这是我们对话的第一个问题。' : 'This is the first question of our conversation.';
  switch (topic) {
    case 'last_question':
      return zh ? `你刚才问的是：“${last.question}”` : `You just asked: "${last.question}"`;
    case 'first_question': {
      const first = turns[0] as EarlierTurn;
      return zh ? `你的第一个问题是：“${first.question}”` : `Your first question was: "${first.question}"`;
    }
    case 'last_answer':
      if (last.answer === null) {
        return zh ? `你上一个问题（“${last.question}”）我没有给出答案。` : `I did not answer your last question ("${last.question}").`;
      }
      return zh ? `我刚才的回答是：“${cut(last.answer)}”` : `My last answer was: "${cut(last.answer)}"`;
    case 'topics': {
      const lines = turns.map((turn, index) => `${index + 1}. ${turn.question}`).join('\n');
      return zh ? `到目前为止你问了：\n${lines}` : `So far you asked:\n${lines}`;
    }
  }
}

/** The reply to a question the rules found needs no retrieval; null for a knowledge query. `turns`: oldest first. */
export function rulesReply(result: IntentRuleResult, turns: readonly EarlierTurn[]): string | null {
  switch (result.intent) {
    case 'greeting':
      return GREETING[result.language];
    case 'thanks':
      return THANKS[result.language];
    case 'conversation_meta':
      return metaReply(result.topic ?? 'last_question', result.language, turns);
    case 'knowledge_query':
      return null;
  }
}
