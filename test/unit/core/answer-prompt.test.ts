import { buildAnswerPrompt, buildAnswerRepairPrompt, describeVerificationProblems } from '../../../core/prompts/answer-prompt';
import { formatDocs } from '../../../core/graph/format-docs';

// The answer writer's prompts (issue 11), pinned: a change to a prompt changes model behaviour and must show up in
// review. One template per language of the question, so that the model answers in it.

const context = formatDocs([{ filename: 'nimbus.md', page_number: 1, text: 'Nimbus C1 支持最大 256GB 的 microSD 卡。' }]);

describe('answer prompts (DESIGN §3.6: one user message, the formatted evidence, citations by [n])', () => {
  test('a Chinese question gets the Chinese prompt', () => {
    expect(buildAnswerPrompt('Nimbus C1 支持多大的存储卡？', context)).toMatchInlineSnapshot(`
{
  "content": "你是知识库问答助手。请只根据下面的检索片段回答用户问题，不要使用片段以外的任何知识。

要求：
- 用与用户问题相同的语言作答，简洁、直接，先给出结论。
- 每一句话都必须在句末（句号之前）带上引用标记，例如 [1]、[2]；标记从 1 开始按出现顺序编号。
- citations 中为每个标记给出一条：marker 为标记数字，doc_index 为所引用片段前方括号中的编号，quote 为从该片段中逐字复制的一段原文（不改写、不省略，能支持这句话即可，尽量短）。quote 是片段正文里的文字，不是引用标记本身（不能是“[1]”）。
- 最多 20 条引用。片段不足以回答的部分不要回答，也不要编造。
- 格式示例（与本题无关）：片段 [2] 写着“本机支持 30W 快充，充满约需 1 小时。”，则回答 {"answer": "它支持 30W 快充[1]。", "citations": [{"marker": 1, "doc_index": 2, "quote": "本机支持 30W 快充"}]}

用户问题：Nimbus C1 支持多大的存储卡？

检索片段：
[1] nimbus.md (Page 1):
Nimbus C1 支持最大 256GB 的 microSD 卡。",
  "role": "user",
}
`);
  });

  test('an English question gets the English prompt', () => {
    expect(buildAnswerPrompt('How large a card does Nimbus C1 take?', context).content).toMatchInlineSnapshot(`
"You answer questions from a knowledge base. Answer the user's question from the retrieved snippets below only; use no knowledge beyond them.

Rules:
- Answer in the language of the question, briefly and directly, conclusion first.
- Every sentence must carry a citation marker at its end (before the full stop), such as [1] or [2]; number markers from 1 in order of appearance.
- In citations, give one entry per marker: marker is the marker's number, doc_index is the number in brackets in front of the cited snippet, quote is a span copied verbatim from that snippet (not reworded, not shortened with ellipses; as short as still supports the sentence).
- At most 20 citations. Leave out what the snippets do not support; never invent.
- A quote is text of the snippet itself, never the marker (not "[1]"). Format example (not about this question): snippet [2] says "The unit supports 30 W fast charging; a full charge takes about an hour.", so the reply is {"answer": "It supports 30 W fast charging [1].", "citations": [{"marker": 1, "doc_index": 2, "quote": "The unit supports 30 W fast charging"}]}

Question: How large a card does Nimbus C1 take?

Retrieved snippets:
[1] nimbus.md (Page 1):
Nimbus C1 支持最大 256GB 的 microSD 卡。"
`);
  });

  test('the repair prompt adds the failed draft and the verifier\'s findings', () => {
    const verification = {
      status: 'partially_verified' as const,
      invalid_citations: [
        { marker: 1, doc_index: 1, reason: 'quote_not_found' as const },
        { marker: 2, doc_index: null, reason: 'missing_citation' as const },
      ],
      uncited_sentences: ['它很好用。'],
    };
    const previous = { answer: '支持 512GB[1]。它很好用。[2]', citations: [{ marker: 1, doc_index: 1, quote: '512GB' }] };
    const { content } = buildAnswerRepairPrompt('Nimbus C1 支持多大的存储卡？', context, previous, verification);
    expect(content.startsWith(buildAnswerPrompt('Nimbus C1 支持多大的存储卡？', context).content)).toBe(true);
    expect(content.slice(buildAnswerPrompt('Nimbus C1 支持多大的存储卡？', context).content.length)).toMatchInlineSnapshot(`
"

你上一次的回答没有通过引用校验：
{"answer":"支持 512GB[1]。它很好用。[2]","citations":[{"marker":1,"doc_index":1,"quote":"512GB"}]}

校验发现的问题：
- [1] (doc_index 1) has a quote that is not in that snippet
- [2] is used in the answer but has no entry in citations
- no valid citation: "它很好用。"

请重新给出完整的回答和引用，修正以上问题：每句话都要有引用，每条 quote 都必须是对应片段中逐字存在的原文。"
`);
    expect(describeVerificationProblems({ status: 'verified', invalid_citations: [], uncited_sentences: [] })).toBe('- (none)');
  });

  test('a question containing a placeholder is inserted verbatim, never re-expanded', () => {
    const { content } = buildAnswerPrompt('what is {context}?', 'CTX $&');
    expect(content.match(/CTX/g)).toHaveLength(1);
    expect(content).toContain('Question: what is {context}?');
  });
});
