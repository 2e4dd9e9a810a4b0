import { RoutePath } from '../../../core/schemas/run-detail';
import { routePathOf } from '../../../core/trace/route-path';
import { outcomeOf, round } from '../../support/run-detail-fixture';

const labels = (path: RoutePath) => path.nodes.map((node) => node.label);
const edges = (path: RoutePath) => path.edges.map((edge) => `${edge.from}→${edge.to}`);

describe('routePathOf: the graph a run walked, from its outcome and trace', () => {
  test('a fast-path question answered from its first retrieval is one chain', () => {
    const path = routePathOf(outcomeOf());
    expect(RoutePath.parse(path)).toEqual(path);
    expect(labels(path)).toEqual(['question', 'fast path: simple', 'retrieve (initial)', 'grade', 'answer']);
    expect(edges(path)).toEqual(['question→fast-path', 'fast-path→retrieve-initial', 'retrieve-initial→grade-initial', 'grade-initial→answer']);
    expect(path.nodes.find((node) => node.id === 'grade-initial')?.detail).toBe('→ answer');
  });

  test('a planned question rewritten once shows the first grade choosing the rewrite, then the second grade', () => {
    const trace = { query: 'Q', complexity: 'simple', complexity_reason: 'one fact', rewrite_method: 'step_back' as const, rewritten_query: 'Q broader', route: 'no_knowledge' };
    const path = routePathOf(outcomeOf({ trace, route: 'no_knowledge', retrieval_status: 'no_knowledge' }));
    expect(labels(path)).toEqual(['question', 'planner: simple', 'retrieve (initial)', 'grade', 'rewrite (step-back)', 'retrieve (rewritten)', 'grade', 'no_knowledge']);
    expect(path.nodes.map((node) => node.detail)).toEqual(['Q', 'one fact', 'Q', '→ rewrite', 'Q broader', 'Q broader', '→ no_knowledge', 'no_knowledge']);
  });

  test('a complex question fans out to its sub-questions in parallel and joins at synthesis', () => {
    const trace = {
      query: 'A 和 B 的区别',
      complexity: 'complex',
      complexity_reason: 'two products',
      sub_traces: [{ query: 'A?', route: 'answer' }, { query: 'B?', route: 'rewrite', rewrite_method: 'hyde' as const }],
    };
    const path = routePathOf(outcomeOf({ trace }));
    expect(labels(path)).toEqual(['question', 'planner: complex', 'sub-question 1', 'sub-question 2', 'synthesis', 'answer']);
    expect(edges(path)).toEqual(['question→planner', 'planner→sub-1', 'planner→sub-2', 'sub-1→synthesis', 'sub-2→synthesis', 'synthesis→answer']);
    expect(path.nodes[3]?.detail).toBe('B? → rewrite (HyDE) → rewrite');
  });

  test('a clarification answered then answered from the targeted retrieval: ask, retrieve, grade, answer', () => {
    const rounds = [round({ round: 1, outcome: 'answered', answer: 'Aurora X2', answered_via: 'update' })];
    const path = routePathOf(outcomeOf({ rounds }));
    expect(labels(path)).toEqual(['question', 'fast path: simple', 'retrieve (initial)', 'grade', 'clarify (round 1): answered', 'retrieve (targeted)', 'grade', 'answer']);
    expect(path.nodes[3]?.detail).toBe('→ clarify');
    expect(path.nodes[5]?.detail).toBe('with "Aurora X2"');
    // The trace is the resumed pass's: its query is the refined question, so the first pass shows none of it.
    const resumed = routePathOf(outcomeOf({ rounds, trace: { query: 'Aurora X2：保修期多久？', hitl_resumed: true, complexity: 'simple', complexity_reason: 'obvious_simple_fast_path:single_fact_marker' } }), '保修期多久？');
    expect(resumed.nodes.map((node) => node.detail).slice(0, 3)).toEqual(['保修期多久？', 'obvious_simple_fast_path:single_fact_marker', null]);
  });

  test('a run waiting for a person ends at its open round; a failed run ends at "failed"', () => {
    const waiting = routePathOf(outcomeOf({ status: 'awaiting_input', route: 'clarify', rounds: [round({ round: 1 })] }));
    expect(labels(waiting).at(-1)).toBe('clarify (round 1): waiting for a person');
    const failed = routePathOf(outcomeOf({ status: 'failed', route: null, trace: null, error: { type: 'MODEL_OUTPUT_INVALID', message: 'bad reply' } }));
    expect(labels(failed)).toEqual(['question', 'failed']);
    expect(failed.nodes[1]?.detail).toBe('MODEL_OUTPUT_INVALID: bad reply');
  });

  test('a run resumed from a snapshot starts at the resume, not at the planner', () => {
    const rounds = [round({ round: 0, outcome: 'answered', answer: '丹瑾', answered_via: 'resume_from' })];
    const path = routePathOf(outcomeOf({ rounds }));
    expect(labels(path)).toEqual(['question', 'resume from snapshot', 'retrieve (targeted)', 'grade', 'answer']);
  });
});
