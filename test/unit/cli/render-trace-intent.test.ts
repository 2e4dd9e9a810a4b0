import { renderTraceTree } from '../../../cli/render/trace-tree';
import { classifyIntent } from '../../../core/intent/classify-intent';
import { decideByRules, intentTraceFragment } from '../../../core/intent/decide-intent';
import { normalizeRagTrace } from '../../../core/trace/normalize';

describe('ragtime trace shows the intent (issue 44 §5)', () => {
  test('a run answered without retrieval: its query and why, no retrieval or grade lines', () => {
    expect(renderTraceTree(normalizeRagTrace(intentTraceFragment(decideByRules(classifyIntent('thanks!', { turnsBefore: 0 }), [], 1), 'thanks!').fields))).toBe(
      ['rag trace', '  query: thanks!', '  intent thanks (rules, confidence 0.95, thanks:thanks) → needs_retrieval false: answered without retrieval'].join('\n'),
    );
  });
});
