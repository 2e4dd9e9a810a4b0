import type { Intent } from '../schemas/intent';
import { fillTemplate, type UserMessage } from './user-message';
import type { EarlierTurn } from '../intent/rules-reply';

/*
 * The model's reply to a question the intent rules found needs no retrieval (issue 44 §5; structured output
 * `intent_reply`): it confirms or refuses the rules' pick (a real question is retrieved for), and writes the reply in
 * the person's language from the conversation only. Called only after the rules matched (core/intent/), so a
 * question the rules send to retrieval never costs this call.
 */

export const INTENT_REPLY_PROMPT_TEMPLATE = `你是知识库问答助手的对话层。用户的最新消息看起来是{kind}，不需要检索知识库。

要求：
- 如果这条消息其实是在询问知识、事实、产品、文档内容等需要查知识库的问题，needs_retrieval 填 true，reply 留空。
- 否则 needs_retrieval 填 false，在 reply 中用与用户消息相同的语言简短回复（问候就回应问候，感谢就回应感谢）。
- 关于对话本身的问题（例如“我刚才问了什么”），只根据下面的对话历史回答，不要编造历史中没有的内容。
- 不要回答任何知识性问题，也不要补充对话历史以外的信息。

对话历史：
{history}

用户的最新消息：{question}`;

const KIND: Record<Intent, string> = {
  greeting: '问候',
  thanks: '感谢',
  conversation_meta: '关于本次对话本身的问题',
  knowledge_query: '需要检索的问题',
};

/** One line per earlier turn, "[2] 问：… 答：…" (answers cut to 200 characters), or （无） on a first turn. */
export function formatEarlierTurns(turns: readonly EarlierTurn[]): string {
  if (turns.length === 0) return '（无）';
  return turns
    .map((turn) => {
      const answer = turn.answer === null ? '（未回答）' : [...turn.answer].length > 200 ? `${[...turn.answer].slice(0, 200).join('')}…` : turn.answer;
      return `[${turn.turn}] 问：${turn.question}\n    答：${answer}`;
    })
    .join('\n');
}

export function buildIntentReplyPrompt(question: string, intent: Intent, turns: readonly EarlierTurn[]): UserMessage {
  return fillTemplate(INTENT_REPLY_PROMPT_TEMPLATE, { kind: KIND[intent], history: formatEarlierTurns(turns), question });
}
