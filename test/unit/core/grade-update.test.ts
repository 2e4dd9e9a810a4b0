import { gradeStep } from '../../../core/graph/grade-step';
import {
  GENERIC_CLARIFY_PROMPT,
  SCOPE_SELECT_PROMPT,
  gradeForNoDocs,
  gradeUpdate,
  resolveHitlPrompt,
  retrievalStatusForRoute,
} from '../../../core/graph/grade-update';
import { GRADE_FIELDS } from '../../../core/schemas/rag-trace';
import { EvidenceGrade } from '../../../core/schemas/model-outputs';
import type { Route } from '../../../core/schemas/graph-values';

const base = EvidenceGrade.parse({ relevance: 'strong', answerability: 'partial', route: 'clarify', confidence: 0.6 });

describe('grading rules (spec §4.5)', () => {
  test('no-docs grade constants (spec §4.5.1)', () => {
    expect(gradeForNoDocs()).toEqual({
      relevance: 'none', answerability: 'none', ambiguity: 'none', route: 'no_knowledge', confidence: 1.0,
      reason: 'no_retrieved_documents', missing_slots: [], hitl_prompt: '', hitl_options: [],
    });
  });

  test.each<[Route, 'none' | 'partial' | 'sufficient', string]>([
    ['answer', 'partial', 'partial'],
    ['answer', 'sufficient', 'answerable'],
    ['answer', 'none', 'answerable'],
    ['rewrite', 'partial', 'needs_rewrite'],
    ['clarify', 'partial', 'needs_clarification'],
    ['scope_select', 'none', 'needs_scope_selection'],
    ['no_knowledge', 'partial', 'no_knowledge'],
  ])('status for route %s with answerability %s is %s (spec §4.5.4)', (route, answerability, status) => {
    expect(retrievalStatusForRoute(route, { answerability })).toBe(status);
  });

  describe('default HITL prompts (spec §4.5.5), first match wins', () => {
    test('the model prompt is used verbatim (T08)', () => {
      expect(resolveHitlPrompt('clarify', { ...base, hitl_prompt: '请补充角色名' })).toBe('请补充角色名');
      expect(resolveHitlPrompt('scope_select', { ...base, hitl_prompt: '选哪个' })).toBe('选哪个');
    });

    test('scope_select default beats missing slots (T07)', () => {
      expect(resolveHitlPrompt('scope_select', { ...base, missing_slots: ['x'] })).toBe(SCOPE_SELECT_PROMPT);
      expect(SCOPE_SELECT_PROMPT).toBe('我在知识库中找到了多个可能相关的方向。你想问的是哪一个？');
    });

    test('missing slots joined with 、 (T06)', () => {
      expect(resolveHitlPrompt('clarify', { ...base, missing_slots: ['版本'] })).toBe('我找到了相关内容，但还缺少关键信息：版本');
      expect(resolveHitlPrompt('clarify', { ...base, missing_slots: ['角色名', '版本'] })).toBe(
        '我找到了相关内容，但还缺少关键信息：角色名、版本',
      );
    });

    test('generic clarify prompt (T11)', () => {
      expect(resolveHitlPrompt('clarify', base)).toBe(GENERIC_CLARIFY_PROMPT);
      expect(GENERIC_CLARIFY_PROMPT).toBe('我找到了相关内容，但证据不足以确定答案。请补充一下你具体想问的条件。');
    });

    test.each<Route>(['answer', 'rewrite', 'no_knowledge'])('route %s gets "" even if the model gave a prompt (T18)', (route) => {
      expect(resolveHitlPrompt(route, { ...base, hitl_prompt: 'ignored', missing_slots: ['x'] })).toBe('');
    });
  });

  test('grade update writes all 10 GRADE keys; hitl_options kept for every route (T18)', () => {
    const update = gradeUpdate({ ...base, hitl_prompt: 'ignored', hitl_options: ['z'], reason: '' }, 'answer');
    expect(Object.keys(update).sort()).toEqual([...GRADE_FIELDS].sort());
    expect(update).toEqual({
      retrieval_status: 'partial', evidence_relevance: 'strong', evidence_answerability: 'partial',
      evidence_ambiguity: 'none', evidence_confidence: 0.6, evidence_reason: '', missing_slots: [], hitl_prompt: '',
      hitl_options: ['z'], route: 'answer',
    });
  });

  describe('gradeStep (spec §4.5 steps 3–7)', () => {
    const docs = [{ filename: 'doc.pdf', text: 't' }];

    test.each<[string, EvidenceGrade, Route, number, boolean]>([
      ['answer keeps docs', { ...base, answerability: 'sufficient', route: 'answer' }, 'answer', 1, false],
      ['rewrite keeps docs', { ...base, route: 'rewrite' }, 'rewrite', 1, false],
      ['clarify drops docs and empties retrieved_chunks', { ...base, ambiguity: 'missing_slot' }, 'clarify', 0, true],
      ['scope_select drops docs and empties retrieved_chunks', { ...base, ambiguity: 'multiple_candidates' }, 'scope_select', 0, true],
      ['no_knowledge drops docs, keeps retrieved_chunks (T05)', { ...base, relevance: 'none' }, 'no_knowledge', 0, false],
    ])('%s', (_name, evidence, route, docCount, clearsTraceChunks) => {
      const result = gradeStep({ grade: evidence, docs, rewriteCount: 0, isSubAgent: false });
      expect(result.route).toBe(route);
      expect(result.docs).toHaveLength(docCount);
      expect('retrieved_chunks' in result.traceFragment.fields).toBe(clearsTraceChunks);
      if (clearsTraceChunks) expect(result.traceFragment.fields.retrieved_chunks).toEqual([]);
    });

    test('clarify with no docs writes no retrieved_chunks key (only non-empty evidence is cleared)', () => {
      const result = gradeStep({ grade: { ...base, ambiguity: 'missing_slot' }, docs: [], rewriteCount: 0, isSubAgent: false });
      expect(result.route).toBe('no_knowledge');
      expect('retrieved_chunks' in result.traceFragment.fields).toBe(false);
    });
  });
});
