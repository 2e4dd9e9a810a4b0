import { resolveRoute } from '../../../core/graph/resolve-route';
import type { Ambiguity, Answerability, Relevance, Route } from '../../../core/schemas/graph-values';
import { EvidenceGrade } from '../../../core/schemas/model-outputs';

function grade(relevance: Relevance, answerability: Answerability, ambiguity: Ambiguity, route: Route): EvidenceGrade {
  return EvidenceGrade.parse({ relevance, answerability, ambiguity, route, confidence: 0.5 });
}

const main = (rewriteCount = 0) => ({ hasDocs: true, rewriteCount, isSubAgent: false });
const sub = { hasDocs: true, rewriteCount: 0, isSubAgent: true };

describe('resolveRoute (spec §4.5.3), one row per branch in priority order', () => {
  test.each<[string, EvidenceGrade, Parameters<typeof resolveRoute>[1], Route]>([
    ['1 no docs', grade('strong', 'sufficient', 'none', 'answer'), { ...main(), hasDocs: false }, 'no_knowledge'],
    ['1 relevance none beats a missing slot', grade('none', 'partial', 'missing_slot', 'clarify'), main(), 'no_knowledge'],
    ['2 missing_slot → clarify, even with answer suggested', grade('strong', 'sufficient', 'missing_slot', 'answer'), main(), 'clarify'],
    ['2 missing_slot in a sub-agent', grade('weak', 'partial', 'missing_slot', 'clarify'), sub, 'clarify'],
    ['3 multiple_candidates → scope_select', grade('weak', 'none', 'multiple_candidates', 'no_knowledge'), main(), 'scope_select'],
    ['4 answer suggested and supported', grade('strong', 'sufficient', 'none', 'answer'), main(1), 'answer'],
    ['5 sub-agent partial → answer', grade('weak', 'partial', 'none', 'rewrite'), sub, 'answer'],
    ['5 sub-agent weak+sufficient → answer (T27)', grade('weak', 'sufficient', 'none', 'answer'), sub, 'answer'],
    ['5 sub-agent no answerability → no_knowledge', grade('strong', 'none', 'none', 'rewrite'), sub, 'no_knowledge'],
    ['6 rewrite suggested with budget', grade('weak', 'none', 'none', 'rewrite'), main(0), 'rewrite'],
    ['7 rewrite suggested, budget spent, partial → clarify (T11)', grade('weak', 'partial', 'none', 'rewrite'), main(1), 'clarify'],
    ['7 rewrite suggested, budget spent, not partial → no_knowledge (T12)', grade('weak', 'none', 'none', 'rewrite'), main(1), 'no_knowledge'],
    ['8 partial with budget → rewrite (T13)', grade('weak', 'partial', 'none', 'answer'), main(0), 'rewrite'],
    ['8 partial, budget spent → clarify (T13)', grade('weak', 'partial', 'none', 'answer'), main(1), 'clarify'],
    ['8 partial with a clarify suggestion → rewrite first', grade('strong', 'partial', 'none', 'clarify'), main(0), 'rewrite'],
    ['9 supported, model said clarify → answer (T14)', grade('strong', 'sufficient', 'none', 'clarify'), main(), 'answer'],
    ['9 supported, model said no_knowledge → answer (T15)', grade('strong', 'sufficient', 'none', 'no_knowledge'), main(), 'answer'],
    ['9 supported, model said scope_select without ambiguity → answer', grade('strong', 'sufficient', 'none', 'scope_select'), main(), 'answer'],
    ['10 weak+sufficient in the main path → no_knowledge (T16)', grade('weak', 'sufficient', 'none', 'answer'), main(), 'no_knowledge'],
    ['10 strong+none, model said answer → no_knowledge', grade('strong', 'none', 'none', 'answer'), main(), 'no_knowledge'],
  ])('rule %s', (_name, evidence, context, expected) => {
    expect(resolveRoute(evidence, context)).toBe(expected);
  });

  test('never returns rewrite once the budget is used, for any grade (exhaustive)', () => {
    const relevances: Relevance[] = ['none', 'weak', 'strong'];
    const answerabilities: Answerability[] = ['none', 'partial', 'sufficient'];
    const ambiguities: Ambiguity[] = ['none', 'missing_slot', 'multiple_candidates'];
    const routes: Route[] = ['answer', 'rewrite', 'clarify', 'scope_select', 'no_knowledge'];
    let combinations = 0;
    for (const r of relevances) for (const a of answerabilities) for (const m of ambiguities) for (const s of routes) {
      combinations += 1;
      expect(resolveRoute(grade(r, a, m, s), main(1))).not.toBe('rewrite');
      expect(resolveRoute(grade(r, a, m, s), sub)).not.toBe('rewrite');
      // scope_select only ever comes from ambiguity (spec §4.5.3 implications).
      if (m !== 'multiple_candidates') expect(resolveRoute(grade(r, a, m, s), main(0))).not.toBe('scope_select');
    }
    expect(combinations).toBe(135);
  });
});
