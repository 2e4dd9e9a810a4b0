import type { AnswerVerification } from '../schemas/answer';
import type { AnswerConversation } from '../schemas/conversation';
import { MAX_ANSWER_CITATIONS } from '../schemas/answer';
import { textLanguage } from '../text/language';
import { fillTemplate, type UserMessage } from './user-message';

/*
 * The answer writer's prompts (ANSWER_MODEL, temperature 0, structured output `answer_draft`; DESIGN §3.6). One per
 * language of the question, so that the model answers in it; the evidence is the formatted list of spec §4.4.2,
 * whose [n] is the doc_index a citation names. The repair prompt adds what the verifier found.
 */

export const ANSWER_PROMPT_TEMPLATE_ZH = `你是知识库问答助手。请只根据下面的检索片段回答用户问题，不要使用片段以外的任何知识。

要求：
- 用与用户问题相同的语言作答，简洁、直接，先给出结论。
- 每一句话都必须在句末（句号之前）带上引用标记，例如 [1]、[2]；标记从 1 开始按出现顺序编号。
- citations 中为每个标记给出一条：marker 为标记数字，doc_index 为所引用片段前方括号中的编号，quote 为从该片段中逐字复制的一段原文（不改写、不省略，能支持这句话即可，尽量短）。quote 是片段正文里的文字，不是引用标记本身（不能是“[1]”）。
- 最多 ${MAX_ANSWER_CITATIONS} 条引用。片段不足以回答的部分不要回答，也不要编造。
- 格式示例（与本题无关）：片段 [2] 写着“本机支持 30W 快充，充满约需 1 小时。”，则回答 {"answer": "它支持 30W 快充[1]。", "citations": [{"marker": 1, "doc_index": 2, "quote": "本机支持 30W 快充"}]}

用户问题：{question}

检索片段：
{context}`;

export const ANSWER_PROMPT_TEMPLATE_EN = `You answer questions from a knowledge base. Answer the user's question from the retrieved snippets below only; use no knowledge beyond them.

Rules:
- Answer in the language of the question, briefly and directly, conclusion first.
- Every sentence must carry a citation marker at its end (before the full stop), such as [1] or [2]; number markers from 1 in order of appearance.
- In citations, give one entry per marker: marker is the marker's number, doc_index is the number in brackets in front of the cited snippet, quote is a span copied verbatim from that snippet (not reworded, not shortened with ellipses; as short as still supports the sentence).
- At most ${MAX_ANSWER_CITATIONS} citations. Leave out what the snippets do not support; never invent.
- A quote is text of the snippet itself, never the marker (not "[1]"). Format example (not about this question): snippet [2] says "The unit supports 30 W fast charging; a full charge takes about an hour.", so the reply is {"answer": "It supports 30 W fast charging [1].", "citations": [{"marker": 1, "doc_index": 2, "quote": "The unit supports 30 W fast charging"}]}

Question: {question}

Retrieved snippets:
{context}`;

export const ANSWER_REPAIR_TEMPLATE_ZH = `{prompt}

你上一次的回答没有通过引用校验：
{previous}

校验发现的问题：
{problems}

请重新给出完整的回答和引用，修正以上问题：每句话都要有引用，每条 quote 都必须是对应片段中逐字存在的原文。`;

export const ANSWER_REPAIR_TEMPLATE_EN = `{prompt}

Your previous answer failed citation checking:
{previous}

What the check found:
{problems}

Give the whole answer and its citations again with these fixed: every sentence cited, every quote a verbatim span of the snippet it names.`;

/** On a turn with history: the earlier turns, read for what the question refers to, never as evidence. */
export const ANSWER_HISTORY_TEMPLATE_ZH = `对话历史（较早的轮次，只用于理解用户问题中的指代和省略，不能作为回答的依据）：
{history}

用户这一轮的原话：{asked}`;

export const ANSWER_HISTORY_TEMPLATE_EN = `Conversation so far (earlier turns, only to understand what the question refers to; never a source for the answer):
{history}

The user's words this turn: {asked}`;

/** One line per earlier turn, answers cut to 300 characters: what was talked about matters, not every detail. */
function formatTurns(conversation: AnswerConversation, zh: boolean): string {
  return conversation.turns
    .map(({ turn, question, answer }) => {
      const said = answer === null ? (zh ? '（未回答）' : '(not answered)') : answer.length > 300 ? `${answer.slice(0, 300)}…` : answer;
      return zh ? `[${turn}] 问：${question}\n    答：${said}` : `[${turn}] Q: ${question}\n    A: ${said}`;
    })
    .join('\n');
}

/**
 * The single user message of the answer call: the question and the formatted evidence. On a turn with history
 * (issue 25 §1) the earlier turns and the person's own words come first; `question` is then the standalone question
 * the evidence was retrieved for. A first turn's prompt is unchanged.
 */
export function buildAnswerPrompt(question: string, context: string, conversation?: AnswerConversation): UserMessage {
  const zh = textLanguage(conversation?.asked ?? question) === 'zh';
  const prompt = fillTemplate(zh ? ANSWER_PROMPT_TEMPLATE_ZH : ANSWER_PROMPT_TEMPLATE_EN, { question, context });
  if (!conversation || conversation.turns.length === 0) return prompt;
  const history = fillTemplate(zh ? ANSWER_HISTORY_TEMPLATE_ZH : ANSWER_HISTORY_TEMPLATE_EN, { history: formatTurns(conversation, zh), asked: conversation.asked });
  return { role: 'user', content: `${history.content}\n\n${prompt.content}` };
}

/** The verifier's report, one line a problem, for the repair prompt. */
export function describeVerificationProblems(verification: AnswerVerification): string {
  const lines = [
    ...verification.invalid_citations.map((citation) => {
      const where = citation.doc_index === null ? '' : ` (doc_index ${citation.doc_index})`;
      const why = {
        missing_citation: 'is used in the answer but has no entry in citations',
        unknown_document: 'names a snippet that does not exist',
        quote_not_found: 'has a quote that is not in that snippet',
        empty_quote: 'has an empty quote',
      }[citation.reason];
      return `- [${citation.marker}]${where} ${why}`;
    }),
    ...verification.uncited_sentences.map((sentence) => `- no valid citation: ${JSON.stringify(sentence)}`),
  ];
  return lines.length > 0 ? lines.join('\n') : '- (none)';
}

/** The repair call's message: the first prompt, the failed draft and the verifier's findings. */
export function buildAnswerRepairPrompt(
  question: string,
  context: string,
  previous: unknown,
  verification: AnswerVerification,
  conversation?: AnswerConversation,
): UserMessage {
  const template = textLanguage(question) === 'zh' ? ANSWER_REPAIR_TEMPLATE_ZH : ANSWER_REPAIR_TEMPLATE_EN;
  return fillTemplate(template, {
    prompt: buildAnswerPrompt(question, context, conversation).content,
    previous: JSON.stringify(previous),
    problems: describeVerificationProblems(verification),
  });
}
