import type { Route } from '../schemas/graph-values';
import { Intent } from '../schemas/intent';
import { ATTRIBUTION_LAYERS, type AttributionLayer } from './attribution';
import type { QuestionResult, Ranks } from './evaluate-question';

/*
 * The report of an evaluation (report.json; rendered as report.md and report.html): every question's result and the
 * aggregates — retrieval hit@1/@5 and MRR@10 per list, route accuracy with its confusion matrix, answers, cost, and
 * the failure funnel by layer. Pure.
 */

export const REPORT_SCHEMA = 'ragtime-eval-v1';

export type RetrievalMetric = { n: number; hit1: number; hit5: number; mrr10: number };

export type EvalSummary = {
  n: number;
  answerable: number;
  unanswerable: number;
  retrieval: Record<keyof Ranks, RetrievalMetric>;
  routes: {
    /** Share of questions whose route is the one they should take. */
    accuracy: number;
    /** Answerable questions answered (route answer). */
    answerable_answered: number;
    /** Unanswerable questions not answered (no_knowledge or clarify). */
    unanswerable_not_answered: number;
    /** Share of all questions sent to scope_select (counted apart: neither right nor a refusal). */
    scope_select: number;
    /** Rows: what a question should get (answer, no_answer, or its expected route); columns: the route it got. */
    confusion: Record<string, Record<string, number>>;
  };
  answers: {
    answered: number;
    /** Of the answered questions that have gold answers: the share whose answer holds one. */
    contains_gold: number | null;
    /** Of the answers: the share whose citations all verified. */
    verified: number | null;
  };
  model_calls: { total: number; mean: number };
  /** Issue 44 §5: questions by the intent their runs decided, and how many were answered without retrieval. */
  intents: { counts: Record<Intent, number>; without_retrieval: number };
  latency_ms: { p50: number; p95: number };
  /** Questions lost at each layer. */
  attribution: Record<AttributionLayer, number>;
  /** Answerable questions (with gold documents) still holding a gold document, stage by stage. */
  funnel: Array<{ stage: string; count: number }>;
  /**
   * A dialogue set's follow-ups (questions with `turns`, issue 25 §3): how many were rewritten from the session, and
   * hit@5 of the gold document in the final evidence with the session's condensation and with the question alone.
   * Absent when the set has none.
   */
  follow_ups?: { n: number; rewritten: number; hit5_with: number; hit5_without: number };
};

export type EvalReport = {
  schema: typeof REPORT_SCHEMA;
  set: string;
  kb: string;
  provider: string;
  created_at: string;
  questions: QuestionResult[];
  summary: EvalSummary;
};

const share = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);

function metric(results: readonly QuestionResult[], list: keyof Ranks): RetrievalMetric {
  const ranks = results.map((r) => r.ranks[list]);
  const within = (k: number) => share(ranks.filter((rank) => rank !== null && rank <= k).length, ranks.length);
  const mrr = ranks.reduce<number>((sum, rank) => sum + (rank !== null && rank <= 10 ? 1 / rank : 0), 0) / Math.max(1, ranks.length);
  return { n: ranks.length, hit1: within(1), hit5: within(5), mrr10: ranks.length === 0 ? 0 : mrr };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** What a question should get, as a row of the confusion matrix. */
export const expectedClass = (r: Pick<QuestionResult, 'answerable' | 'expected_route'>): string => r.expected_route ?? (r.answerable ? 'answer' : 'no_answer');

export function summarize(results: readonly QuestionResult[]): EvalSummary {
  const answerable = results.filter((r) => r.answerable && r.expected_route === null);
  const unanswerable = results.filter((r) => !r.answerable && r.expected_route === null);
  const withGoldDocs = answerable.filter((r) => r.gold_doc_ids.length > 0);
  const confusion: Record<string, Record<string, number>> = {};
  for (const r of results) {
    const row = (confusion[expectedClass(r)] ??= {});
    const column = r.route ?? (r.status === 'failed' ? 'failed' : 'none');
    row[column] = (row[column] ?? 0) + 1;
  }
  const answered = results.filter((r) => r.answer_text !== null);
  const withGold = answered.filter((r) => r.answer_contains_gold !== null);
  const verified = answered.filter((r) => r.verification !== null);
  const attribution = Object.fromEntries(ATTRIBUTION_LAYERS.map((layer) => [layer, results.filter((r) => r.attribution?.layer === layer).length])) as Record<AttributionLayer, number>;
  const calls = results.reduce((sum, r) => sum + r.model_calls, 0);
  const goldQuestions = withGoldDocs.filter((r) => r.error === null);
  const count = (pred: (r: QuestionResult) => boolean) => goldQuestions.filter(pred).length;
  return {
    n: results.length,
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    retrieval: { dense: metric(goldQuestions, 'dense'), bm25: metric(goldQuestions, 'bm25'), fused: metric(goldQuestions, 'fused'), final: metric(goldQuestions, 'final') },
    routes: {
      accuracy: share(results.filter((r) => r.route_correct).length, results.length),
      answerable_answered: share(answerable.filter((r) => r.route === 'answer').length, answerable.length),
      unanswerable_not_answered: share(unanswerable.filter((r) => r.route === 'no_knowledge' || r.route === 'clarify').length, unanswerable.length),
      scope_select: share(results.filter((r) => r.route === 'scope_select').length, results.length),
      confusion,
    },
    answers: {
      answered: answered.length,
      contains_gold: withGold.length === 0 ? null : share(withGold.filter((r) => r.answer_contains_gold).length, withGold.length),
      verified: verified.length === 0 ? null : share(verified.filter((r) => r.verification === 'verified').length, verified.length),
    },
    model_calls: { total: calls, mean: share(calls, results.length) },
    intents: {
      counts: Object.fromEntries(Intent.options.map((intent) => [intent, results.filter((r) => r.intent === intent).length])) as Record<Intent, number>,
      without_retrieval: results.filter((r) => r.needs_retrieval === false).length,
    },
    latency_ms: { p50: percentile(results.map((r) => r.latency_ms), 50), p95: percentile(results.map((r) => r.latency_ms), 95) },
    attribution,
    funnel: [
      { stage: 'answerable questions', count: goldQuestions.length },
      { stage: 'dense recall (top 10)', count: count((r) => r.ranks.dense !== null) },
      { stage: 'BM25 recall (top 10)', count: count((r) => r.ranks.bm25 !== null) },
      { stage: 'recalled by a leg', count: count((r) => r.attribution?.layer !== 'recall') },
      { stage: 'kept by fusion', count: count((r) => !['recall', 'fusion'].includes(r.attribution?.layer ?? '')) },
      { stage: 'in the final evidence', count: count((r) => r.gold_retrieved) },
      { stage: 'routed to answer', count: count((r) => r.route === 'answer') },
      { stage: 'answer holds a gold span', count: count((r) => r.route === 'answer' && r.answer_contains_gold !== false) },
    ],
    ...followUpsOf(results),
  };
}

/** The follow-ups' summary (issue 25 §3), or nothing when the set has no dialogue. */
function followUpsOf(results: readonly QuestionResult[]): { follow_ups?: NonNullable<EvalSummary['follow_ups']> } {
  const followUps = results.filter((r) => r.follow_up !== undefined && r.gold_doc_ids.length > 0 && r.error === null);
  if (followUps.length === 0) return {};
  const within5 = (rank: number | null) => rank !== null && rank <= 5;
  return {
    follow_ups: {
      n: followUps.length,
      rewritten: share(followUps.filter((r) => r.follow_up?.standalone_question !== null && r.follow_up?.standalone_question !== r.question).length, followUps.length),
      hit5_with: share(followUps.filter((r) => within5(r.ranks.final)).length, followUps.length),
      hit5_without: share(followUps.filter((r) => within5(r.follow_up?.final_rank_without ?? null)).length, followUps.length),
    },
  };
}

export function buildReport(input: { set: string; kb: string; provider: string; createdAt: string; results: QuestionResult[] }): EvalReport {
  return { schema: REPORT_SCHEMA, set: input.set, kb: input.kb, provider: input.provider, created_at: input.createdAt, questions: input.results, summary: summarize(input.results) };
}

/** A question is right when its route is, and an answer it got holds a gold span when there are any. */
export const isRight = (r: QuestionResult): boolean => r.error === null && r.route_correct && r.answer_contains_gold !== false;

export type Comparison = {
  regressions: Array<{ id: string; before: Route | null; after: Route | null; layer: AttributionLayer | null }>;
  improvements: Array<{ id: string; before: Route | null; after: Route | null }>;
  /** Questions in only one of the two reports. */
  unmatched: string[];
};

/** Per question: right before and wrong now (a regression), or the other way round. */
export function compareReports(before: EvalReport, after: EvalReport): Comparison {
  const old = new Map(before.questions.map((r) => [r.id, r]));
  const now = new Map(after.questions.map((r) => [r.id, r]));
  const regressions: Comparison['regressions'] = [];
  const improvements: Comparison['improvements'] = [];
  for (const [id, result] of now) {
    const previous = old.get(id);
    if (!previous) continue;
    if (isRight(previous) && !isRight(result)) regressions.push({ id, before: previous.route, after: result.route, layer: result.attribution?.layer ?? null });
    if (!isRight(previous) && isRight(result)) improvements.push({ id, before: previous.route, after: result.route });
  }
  const unmatched = [...[...now.keys()].filter((id) => !old.has(id)), ...[...old.keys()].filter((id) => !now.has(id))].sort();
  return { regressions, improvements, unmatched };
}
