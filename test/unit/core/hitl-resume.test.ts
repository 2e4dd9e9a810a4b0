import { RagError } from '../../../core/errors';
import {
  buildHitlResumeState,
  isHitlResult,
  parseHitlResumeState,
  refinedQuestionForHitl,
} from '../../../core/graph/hitl-resume';

const snapshot = {
  question: '这个角色的属性是什么？',
  route: 'clarify',
  retrieval_status: 'needs_clarification',
  rewrite_count: 0,
  complexity: 'simple',
  complexity_reason: 'obvious_simple_fast_path:single_fact_marker',
  sub_questions: [],
};

describe('HITL resume (spec §4.1, §4.11)', () => {
  describe('refinedQuestionForHitl (spec §4.11.1)', () => {
    // The four verified examples of spec §4.11.1.
    test.each([
      ['这个角色的属性是什么？', '丹瑾', '丹瑾：这个角色的属性是什么？'],
      ['丹瑾的属性是什么？', '丹瑾', '丹瑾的属性是什么？'],
      ['Q', '   ', 'Q'],
      ['', ' ans ', 'ans'],
    ])('(%j, %j) → %j', (question, answer, expected) => {
      expect(refinedQuestionForHitl({ question }, answer)).toBe(expected);
    });

    test('the answer is trimmed before merging, with a full-width colon', () => {
      expect(refinedQuestionForHitl({ question: 'Q?' }, '  v2\n')).toBe('v2：Q?');
    });
  });

  describe('parseHitlResumeState (spec §5.4, T32)', () => {
    test('a valid snapshot passes and keeps all 7 keys', () => {
      expect(Object.keys(parseHitlResumeState(snapshot))).toEqual([
        'question', 'route', 'retrieval_status', 'rewrite_count', 'complexity', 'complexity_reason', 'sub_questions',
      ]);
    });

    test('defaults fill the optional keys', () => {
      expect(parseHitlResumeState({ question: 'q', route: 'scope_select', retrieval_status: 'needs_clarification' })).toEqual({
        question: 'q', route: 'scope_select', retrieval_status: 'needs_clarification', rewrite_count: 0, complexity: null,
        complexity_reason: null, sub_questions: [],
      });
    });

    test.each([
      ['an extra key', { ...snapshot, extra: 1 }],
      ['route answer', { ...snapshot, route: 'answer' }],
      ['an empty question', { ...snapshot, question: '' }],
      ['status answerable', { ...snapshot, retrieval_status: 'answerable' }],
      ['a negative rewrite_count', { ...snapshot, rewrite_count: -1 }],
      ['5 sub-questions', { ...snapshot, sub_questions: ['a', 'b', 'c', 'd', 'e'] }],
      ['complexity medium', { ...snapshot, complexity: 'medium' }],
      ['not an object', 'snapshot'],
    ])('T32 a snapshot with %s is rejected before any retrieval', (_name, input) => {
      expect(() => parseHitlResumeState(input)).toThrow(RagError);
    });

    test('T32 the error names the broken rule', () => {
      expect(() => parseHitlResumeState({ ...snapshot, extra: 1 })).toThrowErrorMatchingInlineSnapshot(
        `"invalid HITL resume snapshot: ✖ Unrecognized key: "extra""`,
      );
      expect(() => parseHitlResumeState({ ...snapshot, route: 'answer' })).toThrowErrorMatchingInlineSnapshot(
        `"invalid HITL resume snapshot: ✖ Invalid option: expected one of "clarify"|"scope_select" → at route"`,
      );
    });

    test('route and status are not cross-checked, as in the original', () => {
      expect(parseHitlResumeState({ ...snapshot, route: 'scope_select' }).retrieval_status).toBe('needs_clarification');
    });
  });

  describe('isHitlResult (spec §4.1)', () => {
    test.each([
      [{ retrieval_status: 'needs_clarification' }, true],
      [{ retrieval_status: 'needs_scope_selection' }, true],
      [{ route: 'clarify' }, true],
      [{ route: 'scope_select' }, true],
      [{ route: 'answer', retrieval_status: 'answerable' }, false],
      [{ rag_trace: { route: 'clarify' } }, true],
      [{ route: 'answer', rag_trace: { route: 'clarify' } }, false],
      [{ retrieval_status: '', rag_trace: { retrieval_status: 'needs_scope_selection' } }, true],
      [{}, false],
    ])('%j → %s', (result, expected) => {
      expect(isHitlResult(result)).toBe(expected);
    });
  });

  describe('buildHitlResumeState (spec §4.1)', () => {
    test('T06 a simple clarify snapshot', () => {
      expect(
        buildHitlResumeState({
          question: '丹瑾是什么属性？', route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0,
          complexity: 'simple', complexity_reason: 'obvious_simple_fast_path:single_fact_marker', sub_questions: null,
        }),
      ).toEqual({
        question: '丹瑾是什么属性？', route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0,
        complexity: 'simple', complexity_reason: 'obvious_simple_fast_path:single_fact_marker', sub_questions: [],
      });
    });

    test('falls back to trace values where the result has none', () => {
      expect(
        buildHitlResumeState({
          rag_trace: { query: 'tq', route: 'scope_select', retrieval_status: 'needs_scope_selection', complexity: 'complex', complexity_reason: 'r', sub_questions: ['a', 'b'] },
        }),
      ).toEqual({
        question: 'tq', route: 'scope_select', retrieval_status: 'needs_scope_selection', rewrite_count: 0,
        complexity: 'complex', complexity_reason: 'r', sub_questions: ['a', 'b'],
      });
    });

    test('an empty-string reason stays "" (Python `a or b` returns b)', () => {
      const state = buildHitlResumeState({ question: 'q', route: 'clarify', retrieval_status: 'needs_clarification', complexity_reason: '', rag_trace: { complexity_reason: '' } });
      expect(state.complexity_reason).toBe('');
    });

    test('a result that is not HITL cannot produce a snapshot', () => {
      expect(() => buildHitlResumeState({ question: 'q', route: 'answer', retrieval_status: 'answerable' })).toThrow(RagError);
    });
  });
});
