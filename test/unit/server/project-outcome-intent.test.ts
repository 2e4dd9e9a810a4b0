import { classifyIntent } from '../../../core/intent/classify-intent';
import { decideByRules, intentTraceFragment, replyAnswer } from '../../../core/intent/decide-intent';
import { normalizeRagTrace } from '../../../core/trace/normalize';
import { projectOutcome } from '../../../server/mcp/project-outcome';
import { outcomeOf } from '../../support/run-detail-fixture';

// Issue 44 §5: an agent reading a reply given without retrieval sees why it has no citations.
test('MCP: a greeting’s reply, no evidence, the citation check’s reason saying it was answered without retrieval', () => {
  const decision = decideByRules(classifyIntent('thanks', { turnsBefore: 0 }), [], 1);
  const result = projectOutcome(outcomeOf({ trace: normalizeRagTrace(intentTraceFragment(decision, 'thanks').fields), retrieval_status: null, answer: replyAnswer(decision), answer_null_reason: null }));
  expect(result.answer).toMatchObject({ text: "You're welcome! Ask me if anything else comes up.", citations: [], citation_check_reason: 'answered without retrieval: thanks (decided by the rules)' });
  expect(result.evidence_total).toBe(0);
});
