import { renderRunComparison } from '../../../cli/render/run-comparison';
import { compareRuns } from '../../../core/compare/compare-runs';
import { detailOf, diagnosticsOf, gradeOf, outcomeOf, retrievalOf, stageOf } from '../../support/run-detail-fixture';

/* Made-up runs (test/support/run-detail-fixture.ts): before and after a warranty page joined the knowledge base. */
const ref = (id: string) => ({ chunk_id: id, filename: `${id}.md`, doc_id: `${id}.md` });

test('trace --diff prints only the blocks that changed, timings last', () => {
  const before = detailOf(outcomeOf({ workflowId: 'rag-s-1', route: 'no_knowledge', retrieval_status: 'no_knowledge', docs: [ref('c9')], answer_null_reason: 'route_not_answer' }), {
    retrievals: [retrievalOf({ workflowId: 'rag-s-1', diagnostics: diagnosticsOf([['c7', 1], ['c1', 2]], []) })],
    grades: [gradeOf({ workflowId: 'rag-s-1', relevance: 'weak', confidence: 0.2, route: 'no_knowledge', retrievalStatus: 'no_knowledge' })],
    timings: [stageOf('retrieve', 2, 40, 'rag-s-1')],
    durationMs: 70,
  });
  const after = detailOf(outcomeOf({ workflowId: 'rag-s-2', docs: [ref('w1'), ref('c9')] }), {
    retrievals: [retrievalOf({ workflowId: 'rag-s-2', diagnostics: diagnosticsOf([['w1', 1], ['c7', 2]], []) })],
    timings: [stageOf('retrieve', 2, 30, 'rag-s-2'), stageOf('generateAnswer', 31, 60, 'rag-s-2')],
    durationMs: 90,
  });
  expect(renderRunComparison(compareRuns(before, after))).toMatchInlineSnapshot(`
"DIFF  rag-s-1  →  rag-s-2
  question  "保修期多久？" (both)
  outcome   completed no_knowledge  →  completed answer
  path a    question → fast path: simple → retrieve (initial) → grade → no_knowledge
  path b    question → fast path: simple → retrieve (initial) → grade → answer
  changes
    route               no_knowledge → answer
    retrieval_status    no_knowledge → answerable
    evidence_count      1 → 2
    answer_null_reason  route_not_answer → not_generated
  grades
    run#1  relevance weak → strong; confidence 0.2 → 0.9; route no_knowledge → answer; retrievalStatus no_knowledge → answerable
  evidence
    + w1 (w1.md) at 1
    ~ c9 1 → 2
  ranks
    run:initial#1 fused: c7 1→2 (+1), c1 gone (was 2), w1 new at 1
  timings
    total           70 ms → 90 ms (+20 ms)
    generateAnswer  — → 29 ms (0 → 1 calls)
    retrieve        38 ms → 28 ms (-10 ms)"
`);
  expect(renderRunComparison(compareRuns(after, after)).split('\n').at(-1)).toBe('  no change in route, outcome, grades, evidence or ranks');
});
