import type { SessionTurn } from '../schemas/conversation';
import { fillTemplate, type UserMessage } from './user-message';

/*
 * FAST_MODEL's condensation of a follow-up question (issue 25 §1; structured output `standalone_question`): the
 * earlier turns and the new question in, one question that stands alone out, in the person's language. Called only
 * when the question refers back (core/conversation/history-reference.ts).
 */

export const CONDENSE_PROMPT_TEMPLATE = `你是对话问题改写器。根据下面的对话历史，把用户的最新问题改写成一个不依赖上下文、可以单独用于检索知识库的问题。

要求：
- 用与最新问题相同的语言改写。
- 把“它”“这个”“那款”“上一个”“it”“that”等指代，以及省略的主语或谓语，补全为对话中明确出现过的内容。
- 不要回答问题，不要补充对话中没有的信息；如果最新问题本身已经完整，原样返回。
- depends_on_history：最新问题是否需要对话历史才能理解。

对话历史：
{history}

最新问题：{question}`;

/** One line per earlier turn: "[2] 问：… 答：…" (answers cut to 200 characters: the subject matters, not the details). */
export function formatHistory(turns: readonly SessionTurn[]): string {
  return turns
    .map((turn) => {
      const answer = turn.answer === null ? '（未回答）' : turn.answer.length > 200 ? `${turn.answer.slice(0, 200)}…` : turn.answer;
      return `[${turn.turn}] 问：${turn.standaloneQuestion}\n    答：${answer}`;
    })
    .join('\n');
}

export function buildCondensePrompt(question: string, turns: readonly SessionTurn[]): UserMessage {
  return fillTemplate(CONDENSE_PROMPT_TEMPLATE, { history: formatHistory(turns), question });
}
