import { CITATION_MARKER } from '../answer/sentences';
import { normalizeForMatch } from '../answer/verify-answer';
import type { RagAnswer, VerificationStatus } from '../schemas/answer';
import type { ConversationRecord } from '../schemas/conversation';
import type { Intent } from '../schemas/intent';
import type { RagTrace } from '../schemas/rag-trace';
import type { Route } from '../schemas/graph-values';
import type { Chunk } from '../schemas/retrieved-chunk';
import type { RetrievalResult } from '../trace/writers';
import { attributeMiss, type Attribution } from './attribution';
import { documentOfChunk, type GoldenQuestion } from './golden-set';

/*
 * One question of an evaluation, scored from what its run recorded (pure): the retrievals in its history (docs,
 * meta, diagnostics), its outcome (route, answer) and its cost. Retrieval quality is read on the question's own
 * retrieval (the first), the failure attribution on the retrieval the grade last saw.
 */

/** What `ragtime eval` reads of one run. */
export type RunFacts = {
  workflowId: string;
  status: string;
  route: Route | null;
  retrievalStatus: string | null;
  answer: RagAnswer | null;
  /** The run's retrievals in order (purpose initial, rewritten, hitl_targeted, sub_question…). */
  retrievals: Array<{ purpose: string; result: RetrievalResult }>;
  /** Model activities the run scheduled (planner, grader, rewriter, answer writer). */
  modelCalls: number;
  latencyMs: number;
  error: { type: string; message: string } | null;
  /** The run's trace's intent fields (issue 44 §5); absent or null: a knowledge query that needed retrieval. */
  trace?: Pick<RagTrace, 'intent' | 'needs_retrieval'> | null;
  /** A follow-up's (issue 25 §3): how the run read it, and the same question's own retrieval asked without the turns. */
  followUp?: { conversation: ConversationRecord | null; retrievalsWithout: Array<{ purpose: string; result: RetrievalResult }> };
  /** The gold documents the question's filters leave out (issue 44 §2, read from their metadata); absent: none. */
  filteredOut?: string[];
};

/** A follow-up question's result: what it was read as, and its gold rank with and without the session's turns. */
export type FollowUpResult = {
  turns: number;
  standalone_question: string | null;
  condensed_by: string | null;
  /** 1-based rank of the first gold document in the final evidence of the question asked alone; null: not there. */
  final_rank_without: number | null;
};

export type Ranks = { dense: number | null; bm25: number | null; fused: number | null; final: number | null };

export type QuestionResult = {
  id: string;
  question: string;
  answerable: boolean;
  expected_route: Route | null;
  workflow_id: string;
  status: string;
  route: Route | null;
  retrieval_status: string | null;
  /** Whether the route is the one the question should take (see `routeIsCorrect`). */
  route_correct: boolean;
  gold_doc_ids: string[];
  /** 1-based rank of the first gold document in each list of the question's own retrieval; null: not there. */
  ranks: Ranks;
  /** Whether any retrieval of the run returned a gold document in its final evidence. */
  gold_retrieved: boolean;
  answer_text: string | null;
  /** null when the question has no gold answers, or there is no answer. */
  answer_contains_gold: boolean | null;
  verification: VerificationStatus | null;
  model_calls: number;
  latency_ms: number;
  error: string | null;
  /** For a question the run got wrong: the first layer that lost it. */
  attribution: Attribution | null;
  /** The question's intent as the run decided it (issue 44 §5): knowledge_query unless its trace says otherwise. */
  intent: Intent;
  /** False when the run answered without retrieval (a greeting, a thanks, a question about the conversation). */
  needs_retrieval: boolean;
  /** Only for questions with `turns` (a dialogue's follow-up). */
  follow_up?: FollowUpResult;
};

const docOf = (chunk: { chunk_id?: string; doc_id?: string; filename?: string }): string =>
  chunk.doc_id ?? (chunk.chunk_id ? documentOfChunk(chunk.chunk_id) : (chunk.filename ?? ''));

/** 1-based rank of the first item whose document is gold, or null. */
export function goldRank(items: ReadonlyArray<{ chunk_id?: string; doc_id?: string; filename?: string }> | null | undefined, gold: ReadonlySet<string>): number | null {
  if (!items) return null;
  const index = items.findIndex((item) => gold.has(docOf(item)));
  return index < 0 ? null : index + 1;
}

/** True when the question took the route it should (answerable → answer; unanswerable → no_knowledge or clarify). */
export function routeIsCorrect(question: Pick<GoldenQuestion, 'answerable' | 'expected_route'>, route: Route | null): boolean {
  if (question.expected_route !== undefined) return route === question.expected_route;
  return question.answerable ? route === 'answer' : route === 'no_knowledge' || route === 'clarify';
}

/** Whether `text` (its [n] markers left out) holds one of the gold answer spans, as the verifier compares quotes. */
export function containsGold(text: string, goldAnswers: readonly string[]): boolean {
  const haystack = normalizeForMatch(text.replace(CITATION_MARKER, ''));
  return goldAnswers.some((span) => normalizeForMatch(span) !== '' && haystack.includes(normalizeForMatch(span)));
}

export function evaluateQuestion(question: GoldenQuestion, run: RunFacts): QuestionResult {
  const gold = new Set(question.gold_doc_ids);
  const own = run.retrievals[0]?.result;
  const last = run.retrievals.at(-1)?.result;
  const diagnostics = own?.diagnostics;
  const ranks: Ranks = {
    dense: goldRank(diagnostics?.legs.dense ?? diagnostics?.legs.dense_fallback, gold),
    bm25: goldRank(diagnostics?.legs.bm25, gold),
    fused: goldRank(diagnostics?.fused, gold),
    final: goldRank(own?.docs as Chunk[] | undefined, gold),
  };
  const goldRetrieved = run.retrievals.some(({ result }) => goldRank(result.docs as Chunk[], gold) !== null);
  const answerContainsGold = run.answer && question.gold_answers.length > 0 ? containsGold(run.answer.text, question.gold_answers) : null;
  const routeCorrect = routeIsCorrect(question, run.route);
  const result: QuestionResult = {
    id: question.id,
    question: question.question,
    answerable: question.answerable,
    expected_route: question.expected_route ?? null,
    gold_doc_ids: question.gold_doc_ids,
    workflow_id: run.workflowId,
    status: run.status,
    route: run.route,
    retrieval_status: run.retrievalStatus,
    route_correct: routeCorrect,
    ranks,
    gold_retrieved: goldRetrieved,
    answer_text: run.answer?.text ?? null,
    answer_contains_gold: answerContainsGold,
    verification: run.answer?.verification.status ?? null,
    model_calls: run.modelCalls,
    latency_ms: run.latencyMs,
    error: run.error ? `${run.error.type}: ${run.error.message}` : null,
    attribution: null,
    intent: run.trace?.intent?.intent ?? 'knowledge_query',
    needs_retrieval: run.trace?.needs_retrieval ?? true,
  };
  result.attribution = attributeMiss(question, result, last, run.filteredOut);
  if (question.turns && run.followUp) {
    const alone = run.followUp.retrievalsWithout[0]?.result;
    result.follow_up = {
      turns: question.turns.length,
      standalone_question: run.followUp.conversation?.standaloneQuestion ?? null,
      condensed_by: run.followUp.conversation?.condensedBy ?? null,
      final_rank_without: goldRank(alone?.docs as Chunk[] | undefined, gold),
    };
  }
  return result;
}
