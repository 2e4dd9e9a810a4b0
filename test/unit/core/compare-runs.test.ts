import { compareRuns } from '../../../core/compare/compare-runs';
import { RunComparison } from '../../../core/schemas/run-comparison';
import { detailOf, diagnosticsOf, gradeOf, outcomeOf, retrievalOf, stageOf } from '../../support/run-detail-fixture';

/*
 * The pairs are made up to look like what issue 16 compares: one question before and after a document was added
 * to the knowledge base, and two different questions.
 */

const chunk = (chunkId: string) => ({ chunk_id: chunkId, filename: `${chunkId}.md`, doc_id: `${chunkId}.md`, text: '…' });

describe('compareRuns', () => {
  test('a run compared with itself: nothing changed, every list empty', () => {
    const run = detailOf(outcomeOf({ docs: [chunk('c1')] }));
    const comparison = compareRuns(run, run);
    expect(RunComparison.parse(comparison)).toEqual(comparison);
    expect(comparison).toMatchObject({ sameQuestion: true, changed: false, routeChanged: false, changes: [], grades: [], ranks: [], timings: [] });
    expect(comparison.evidence).toEqual({ entered: [], left: [], moved: [] });
  });

  test('the same question before and after a knowledge change: route, grade, evidence and ranks move', () => {
    // Before: the knowledge base lacked the warranty page; the grader found nothing relevant and the run stopped.
    const before = detailOf(
      outcomeOf({ workflowId: 'rag-s-1', route: 'no_knowledge', retrieval_status: 'no_knowledge', docs: [], answer_null_reason: 'route_not_answer' }),
      {
        retrievals: [retrievalOf({ workflowId: 'rag-s-1', diagnostics: diagnosticsOf([['c7', 1], ['c1', 2]]) })],
        grades: [gradeOf({ workflowId: 'rag-s-1', relevance: 'none', answerability: 'none', confidence: 0.2, route: 'no_knowledge', retrievalStatus: 'no_knowledge' })],
        timings: [stageOf('retrieve', 2, 40, 'rag-s-1'), stageOf('gradeEvidence', 41, 60, 'rag-s-1')],
        durationMs: 70,
      },
    );
    // After: warranty.md was ingested; it is recalled first and the run answers from it.
    const after = detailOf(outcomeOf({ workflowId: 'rag-s-2', docs: [chunk('w1'), chunk('c1')] }), {
      retrievals: [retrievalOf({ workflowId: 'rag-s-2', diagnostics: diagnosticsOf([['w1', 1], ['c7', 2], ['c1', 3]]) })],
      grades: [gradeOf({ workflowId: 'rag-s-2' })],
      timings: [stageOf('retrieve', 2, 30, 'rag-s-2'), stageOf('gradeEvidence', 31, 60, 'rag-s-2'), stageOf('generateAnswer', 61, 80, 'rag-s-2')],
      durationMs: 90,
    });
    const comparison = compareRuns(before, after);
    expect(comparison.sameQuestion).toBe(true);
    expect(comparison.changed).toBe(true);
    expect(comparison.routeChanged).toBe(true);
    expect(comparison.a.path.at(-1)).toBe('no_knowledge');
    expect(comparison.b.path.at(-1)).toBe('answer');
    expect(comparison.changes).toEqual([
      { field: 'route', a: 'no_knowledge', b: 'answer' },
      { field: 'retrieval_status', a: 'no_knowledge', b: 'answerable' },
      { field: 'evidence_count', a: 0, b: 2 },
      { field: 'answer_null_reason', a: 'route_not_answer', b: 'not_generated' },
    ]);
    expect(comparison.grades).toEqual([
      {
        position: 'run#1',
        changes: [
          { field: 'relevance', a: 'none', b: 'strong' },
          { field: 'answerability', a: 'none', b: 'sufficient' },
          { field: 'confidence', a: 0.2, b: 0.9 },
          { field: 'route', a: 'no_knowledge', b: 'answer' },
          { field: 'retrievalStatus', a: 'no_knowledge', b: 'answerable' },
        ],
      },
    ]);
    expect(comparison.evidence.entered.map((ref) => [ref.key, ref.rankA, ref.rankB])).toEqual([['w1', null, 1], ['c1', null, 2]]);
    expect(comparison.evidence.left).toEqual([]);
    // The same moves in the dense leg and the fused list (the fixture fuses the dense leg alone).
    expect(comparison.ranks.map((movement) => movement.leg)).toEqual(['dense', 'fused']);
    expect(comparison.ranks[1]).toEqual({
      retrieval: 'run:initial#1',
      leg: 'fused',
      moves: [
        { chunk_id: 'c7', filename: 'c7.md', rankA: 1, rankB: 2, delta: 1 },
        { chunk_id: 'c1', filename: 'c1.md', rankA: 2, rankB: 3, delta: 1 },
        { chunk_id: 'w1', filename: 'w1.md', rankA: null, rankB: 1, delta: null },
      ],
    });
    expect(comparison.timings).toEqual([
      { type: 'total', aMs: 70, bMs: 90, deltaMs: 20, countA: 1, countB: 1 },
      { type: 'generateAnswer', aMs: null, bMs: 19, deltaMs: null, countA: 0, countB: 1 },
      { type: 'gradeEvidence', aMs: 19, bMs: 29, deltaMs: 10, countA: 1, countB: 1 },
      { type: 'retrieve', aMs: 38, bMs: 28, deltaMs: -10, countA: 1, countB: 1 },
    ]);
  });

  test('two different questions: the question differs; equal parts stay out of the diff', () => {
    const a = detailOf(outcomeOf({ workflowId: 'rag-s-1', docs: [chunk('c1')] }), { question: '保修期多久？' });
    const b = detailOf(outcomeOf({ workflowId: 'rag-s-2', docs: [chunk('c1')] }), {
      question: '怎么重置密码？',
      grades: [gradeOf({ workflowId: 'rag-s-2', question: '怎么重置密码？' })],
    });
    const comparison = compareRuns(a, b);
    expect(comparison.sameQuestion).toBe(false);
    expect(comparison.changes).toEqual([{ field: 'question', a: '保修期多久？', b: '怎么重置密码？' }]);
    expect(comparison.grades).toEqual([{ position: 'run#1', changes: [{ field: 'question', a: '保修期多久？', b: '怎么重置密码？' }] }]);
    expect(comparison.evidence).toEqual({ entered: [], left: [], moved: [] });
    expect(comparison.ranks).toEqual([]);
    expect(comparison.routeChanged).toBe(false);
  });

  test('sub-question parts pair by their role, not by the differing workflow ids', () => {
    const trace = { query: 'A 和 B', complexity: 'complex', complexity_reason: 'two', sub_traces: [{ query: 'A?', route: 'answer' }] };
    const part = (runId: string, fused: Array<[string, number]>) =>
      detailOf(outcomeOf({ workflowId: runId, trace }), {
        retrievals: [retrievalOf({ workflowId: `${runId}/sub-1`, purpose: 'sub_question', diagnostics: diagnosticsOf(fused, []) })],
        grades: [gradeOf({ workflowId: `${runId}/sub-1` })],
      });
    const comparison = compareRuns(part('rag-s-1', [['c1', 1], ['c2', 2]]), part('rag-s-2', [['c2', 1], ['c1', 2]]));
    expect(comparison.grades).toEqual([]);
    expect(comparison.ranks.map((movement) => `${movement.retrieval} ${movement.leg} ${movement.moves.length}`)).toEqual(['sub-1:sub_question#1 fused 2']);
  });
});
