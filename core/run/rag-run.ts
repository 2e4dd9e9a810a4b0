import type { ScopeCandidate } from '../graph/scope-pick';
import type { FilterClause, MetadataFilters } from '../retrieval/metadata-filter';
import { AuditTrail } from '../audit/audit-trail';
import { RagError } from '../errors';
import { buildHitlResumeState, isHitlResult, type RunResult } from '../graph/hitl-resume';
import { textLanguage } from '../text/language';
import { ProgressLog, type RagStep, type StepGroup, type StepMessage } from '../progress/rag-step';
import type { AnswerNullReason, RagAnswer } from '../schemas/answer';
import type { AnswerConversation, ConversationRecord } from '../schemas/conversation';
import type { IntentDecision } from '../schemas/intent';
import type { RetrievalStatus, Route } from '../schemas/graph-values';
import type { HitlResumeState } from '../schemas/hitl-resume-state';
import type { Chunk } from '../schemas/retrieved-chunk';
import type { HitlRequest, HitlRound, RagOutcome, RunError, RunStatus } from '../schemas/run-io';
import type { SpeculationReport } from '../schemas/speculation';
import { mergeTraceFragments, type TraceFragment } from '../trace/fragment';
import { normalizeRagTrace } from '../trace/normalize';
import type { RetrievalResult } from '../trace/writers';
import { RetrievalHealth } from './retrieval-health';
import { answeredBy } from './answered-by';
import type { RawRagTrace } from '../trace/raw-trace';

export type AnswerVia = 'signal' | 'update' | 'resume_from';
export type PendingAnswer = { text: string; via: AnswerVia };
export type RunIds = { workflowId: string; runId: string; sessionId: string };

/**
 * The state of one run of the graph (the RAGState S of spec §2 plus the HITL conversation), as a plain class so
 * that the workflow's message handlers stay one line each. Pure: time comes in as an argument.
 */
export class RagRun {
  status: RunStatus = 'running';
  /** The knowledge base every retrieval of the run reads; null: the worker's default. */
  kb: string | null = null;
  /** The knowledge base its retrievals read (the worker's default when `kb` is null); null until one says. */
  kbRead: string | null = null;
  /** The metadata filters every retrieval of the run applies (issue 44 §2); null: none. */
  filters: MetadataFilters | null = null;
  /**
   * Clauses every retrieval ANDs in that the run's caller cannot widen (issue 44 §4's hook: set by the workflow from
   * what the server decided, never from the caller's filters); [] for none.
   */
  forced: FilterClause[] = [];
  question = '';
  route: Route | null = null;
  retrievalStatus: RetrievalStatus | null = null;
  docs: Chunk[] = [];
  rewriteCount = 0;
  complexity: 'simple' | 'complex' | null = null;
  complexityReason: string | null = null;
  subQuestions: string[] = [];
  trace: RawRagTrace | null = null;
  hitl: HitlRequest | null = null;
  resumeState: HitlResumeState | null = null;
  readonly rounds: HitlRound[] = [];
  error: RunError | null = null;
  /** The answer node's result (DESIGN §3.6): the answer, or why writing it failed for good. */
  answer: RagAnswer | null = null;
  answerError: RunError | null = null;
  /** False for runs whose history predates the answer node (they settle on `answer` without one). */
  answersEnabled = true;
  /** The provider and models that answered this run's model calls (ChatModels.describe), once known. */
  models: string | null = null;
  /** What the run did with its session's earlier turns (issue 25 §1); null on runs that do not read them. */
  conversation: ConversationRecord | null = null;
  /** What the answer writer sees of the conversation; null on a first turn. */
  answerConversation: AnswerConversation | null = null;
  /** The question's intent (issue 44 §5), decided with the session's turns; null on runs that do not decide it. */
  intent: IntentDecision | null = null;
  /** The document a person chose when the run asked which (issue 32 §2): it limits the targeted retrieval and the grade. */
  scope: { title: string; docIds: string[] } | null = null;
  /** The documents the last scope_select grade offered (its route drops the evidence); [] after any other grade. */
  scopeCandidates: ScopeCandidate[] = [];
  /** What the run speculated (issue 17 §2); null when it does not speculate. Not part of the trace. */
  speculation: SpeculationReport | null = null;
  /**
   * The answer generation listeners of a streaming answer see (issue 25 §2): the writer's call the run waits on, or the
   * speculative draft it took. Null before the answer node; a draft the run drops is never named here.
   */
  answerGeneration: string | null = null;
  private generations = 0;
  /** Bumped each time the run settles (asks, completes or fails), so a waiter can tell "the next" settle. */
  settleCount = 0;
  /** Audit rows and timeline events not yet recorded (DESIGN §5 layer B); filled by the graph nodes. */
  readonly audit = new AuditTrail();
  /** Whether every retrieval could read the knowledge base (the outcome's `degraded`). */
  readonly retrievalHealth = new RetrievalHealth();
  private inbox: PendingAnswer | null = null;
  private readonly progress: ProgressLog;

  constructor(startedAt: number) {
    this.progress = new ProgressLog(startedAt);
  }

  step(message: StepMessage | StepMessage[], now: number, group: StepGroup = null): void {
    const language = textLanguage(this.question);
    for (const item of Array.isArray(message) ? message : [message]) this.progress.add(item, now, group, language);
  }

  appendSteps(steps: readonly RagStep[]): void {
    this.progress.append(steps);
  }

  steps(): RagStep[] {
    return this.progress.all();
  }

  /** A retrieval's result, for the audit row it belongs to and the run's retrieval health. */
  retrieved(result: RetrievalResult, purpose: Parameters<RetrievalHealth['note']>[1]): void {
    this.noteKbRead(result.kb);
    this.audit.retrieved(result);
    this.retrievalHealth.note(result, purpose);
  }

  /** The knowledge base a retrieval (of this run or a sub-question's) says it read, when the run named none. */
  noteKbRead(kb: string | undefined): void {
    if (this.kbRead === null && kb !== undefined) this.kbRead = kb;
  }

  /** A new answer generation's name (deterministic: counted in the run), for the writer's side channel. */
  newAnswerGeneration(): string {
    this.generations += 1;
    return `answer-${this.generations}`;
  }

  applyTrace(...fragments: TraceFragment[]): void {
    this.trace = mergeTraceFragments(this.trace, ...fragments);
  }

  /** The S values the HITL helpers read (spec §4.1). */
  private asRunResult(): RunResult {
    return {
      question: this.question,
      route: this.route,
      retrieval_status: this.retrievalStatus,
      rewrite_count: this.rewriteCount,
      complexity: this.complexity,
      complexity_reason: this.complexityReason,
      sub_questions: this.subQuestions,
      rag_trace: this.trace,
    };
  }

  needsPerson(): boolean {
    return isHitlResult(this.asRunResult());
  }

  /** Publishes the pending question and its resume snapshot (spec §4.1 step 2, DESIGN §3.5). */
  askPerson(round: number): void {
    this.resumeState = buildHitlResumeState(this.asRunResult());
    this.hitl = this.currentQuestion(round);
    this.rounds.push({
      round,
      route: this.resumeState.route,
      retrieval_status: this.resumeState.retrieval_status,
      prompt: this.hitl.prompt,
      options: this.hitl.options,
      answer: null,
      answered_via: null,
      outcome: 'waiting',
    });
    this.status = 'awaiting_input';
    this.settleCount += 1;
  }

  /** Why an answer cannot be taken now, or null when it can. Used by the update validator. */
  answerRejection(): RagError | null {
    if (this.status !== 'awaiting_input') {
      return new RagError('NOT_AWAITING_INPUT', `run is ${this.status}, not awaiting input; an answer is taken only while the run waits for one`);
    }
    if (this.inbox) return new RagError('NOT_AWAITING_INPUT', 'an answer for this round was already received');
    return null;
  }

  /** Takes an answer if the run waits for one; returns whether it was taken (a late signal is dropped). */
  receiveAnswer(text: string, via: AnswerVia): boolean {
    if (this.answerRejection()) return false;
    this.inbox = { text, via };
    return true;
  }

  hasAnswer(): boolean {
    return this.inbox !== null;
  }

  /** Takes the received answer and marks the round answered; the run is running again. */
  takeAnswer(): PendingAnswer {
    const answer = this.inbox;
    if (!answer) throw new RagError('NOT_AWAITING_INPUT', 'no answer was received');
    this.inbox = null;
    this.closeRound('answered', answer);
    this.status = 'running';
    this.hitl = null;
    return answer;
  }

  /** Records an answer given before this run started (a resume from a snapshot). */
  recordResumeAnswer(snapshot: HitlResumeState, text: string): void {
    this.rounds.push({
      round: 0,
      route: snapshot.route,
      retrieval_status: snapshot.retrieval_status,
      prompt: '',
      options: [],
      answer: text,
      answered_via: 'resume_from',
      outcome: 'answered',
    });
  }

  private closeRound(outcome: HitlRound['outcome'], answer: PendingAnswer | null = null): void {
    const round = this.rounds[this.rounds.length - 1];
    if (!round || round.outcome !== 'waiting') return;
    round.outcome = outcome;
    round.answer = answer?.text ?? null;
    round.answered_via = answer?.via ?? null;
  }

  /**
   * The wait for an answer is over (it timed out): answers are refused from now on, though the run has not settled
   * yet (it records its audit first); `timeOut()` then ends it.
   */
  stopTakingAnswers(): void {
    if (this.status === 'awaiting_input') this.status = 'running';
  }

  /** Ends the run with no answer for the pending question. Its snapshot lets an app resume later. */
  timeOut(): void {
    this.closeRound('timed_out');
    this.finish();
  }

  /**
   * Ends the run. One that still needs a person (out of rounds, or timed out) keeps its question and a snapshot
   * of its latest state, so an app can resume it later with a new run.
   */
  finish(): void {
    if (this.needsPerson()) {
      this.resumeState = buildHitlResumeState(this.asRunResult());
      // The next round's number: the last round's plus one (a resumed run's record starts at round 0).
      this.hitl = this.currentQuestion(this.hitl?.round ?? (this.rounds.at(-1)?.round ?? 0) + 1);
    } else {
      this.resumeState = null;
      this.hitl = null;
    }
    this.status = 'completed';
    this.settleCount += 1;
  }

  private currentQuestion(round: number): HitlRequest {
    const trace = this.trace ?? {};
    return { prompt: trace.hitl_prompt ?? '', options: [...(trace.hitl_options ?? [])], round };
  }

  fail(error: RunError): void {
    this.error = error;
    this.status = 'failed';
    this.settleCount += 1;
  }

  isSettled(): boolean {
    return this.status !== 'running';
  }

  normalizedTrace() {
    return normalizeRagTrace(this.trace);
  }

  /** Why the outcome carries no answer, or null when it carries one. */
  private answerNullReason(): AnswerNullReason | null {
    if (this.answer) return null;
    if (this.answerError) return 'answer_failed';
    if (this.status === 'running') return 'pending';
    if (this.status === 'failed') return 'run_failed';
    if (this.route !== 'answer' || this.status !== 'completed') return 'route_not_answer';
    return this.answersEnabled ? 'pending' : 'not_generated';
  }

  /** What graded and wrote (issue 43 §5), once a model activity has said which provider answered. */
  private answeredBy(): Pick<RagOutcome, 'answered_by'> {
    const by = answeredBy(this.models, this.answer?.model ?? null);
    return by ? { answered_by: by } : {};
  }

  outcome(ids: RunIds): RagOutcome {
    return {
      ...ids,
      kb: this.kb ?? this.kbRead,
      status: this.status,
      route: this.route,
      retrieval_status: this.retrievalStatus,
      rag_trace: this.normalizedTrace(),
      docs: this.docs,
      hitl: this.hitl,
      hitl_resume_state: this.resumeState,
      rounds: this.rounds.map((round) => ({ ...round })),
      error: this.error,
      answer: this.answer,
      answer_null_reason: this.answerNullReason(),
      answer_error: this.answerError,
      degraded: this.retrievalHealth.degraded(),
      ...(this.speculation ? { speculation: this.speculation } : {}),
      ...(this.conversation ? { conversation: this.conversation } : {}),
      ...this.answeredBy(),
    };
  }
}
