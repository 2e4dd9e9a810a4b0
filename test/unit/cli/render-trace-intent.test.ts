import { renderChatOutcome } from '../../../cli/chat/chat-outcome';
import { renderAnswer } from '../../../cli/render/answer';
import { exitCodeOf } from '../../../cli/render/outcome';
import { renderTraceTree } from '../../../cli/render/trace-tree';
import { classifyIntent } from '../../../core/intent/classify-intent';
import { decideByRules, intentTraceFragment, replyAnswer } from '../../../core/intent/decide-intent';
import { normalizeRagTrace } from '../../../core/trace/normalize';
import { outcomeOf } from '../../support/run-detail-fixture';

describe('ragtime trace shows the intent (issue 44 §5)', () => {
  test('a run answered without retrieval: its query and why, no retrieval or grade lines', () => {
    expect(renderTraceTree(normalizeRagTrace(intentTraceFragment(decideByRules(classifyIntent('thanks!', { turnsBefore: 0 }), [], 1), 'thanks!').fields))).toBe(
      ['rag trace', '  query: thanks!', '  intent thanks (rules, confidence 0.95, thanks:thanks) → needs_retrieval false: answered without retrieval'].join('\n'),
    );
  });
});

describe('ragtime ask and chat print a reply without a citation check (issue 44 §5)', () => {
  test('the reply, then why it has no sources', () => {
    const decision = decideByRules(classifyIntent('你好', { turnsBefore: 0 }), [], 1);
    const outcome = outcomeOf({ trace: normalizeRagTrace(intentTraceFragment(decision, '你好').fields), retrieval_status: null, answer: replyAnswer(decision), answer_null_reason: null });
    const lines = ['你好！有什么关于知识库文档的问题，尽管问我。', '', '  answered without retrieval: a greeting (decided by the rules)'];
    expect(renderAnswer(outcome).slice(0, 3)).toEqual(lines);
    expect(renderChatOutcome(outcome).slice(0, 3)).toEqual(lines);
    expect(exitCodeOf(outcome)).toBe(0);
  });
});
