import { CancellationScope } from '@temporalio/workflow';
import type { RagRun } from '../core/run/rag-run';
import type { Chunk } from '../core/schemas/retrieved-chunk';
import {
  speculatesAt,
  speculationReport,
  type SpeculationLevel,
  type SpeculationRecord,
} from '../core/schemas/speculation';
import { stampNow } from './stamp-clock';
import { SPECULATION_PATCH, patchedFor } from './start-patches';

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
type Kind = SpeculationRecord['kind'];

/**
 * One activity started ahead of the step that needs it, in a cancellation scope of its own so that it can be dropped.
 * Its failure is held, not thrown, until someone uses it: a dropped speculation never fails the run.
 */
export class Speculative<T> {
  private readonly scope = new CancellationScope();
  private readonly startedAt: number;
  private settledOnce = false;
  readonly settled: Promise<Settled<T>>;
  /** The answer generation a draft writes under (issue 25 §2); null for other kinds. */
  label: string | null = null;

  constructor(
    private readonly owner: Speculator,
    readonly kind: Kind,
    readonly question: string,
    /** Model calls it has sent so far (a speculative grade sends its one once the evidence is in, and none for no evidence). */
    public modelCalls: number,
    start: () => Promise<T>,
  ) {
    this.startedAt = owner.now();
    this.settled = this.scope.run(start).then(
      (value): Settled<T> => ({ ok: true, value }),
      (error: unknown): Settled<T> => ({ ok: false, error }),
    );
  }

  /** Its result, exactly what the step would have got by calling now (a failure is thrown as that call's would be). */
  async use(): Promise<T> {
    const result = await this.settled;
    this.close('used', null);
    if (!result.ok) throw result.error;
    return result.value;
  }

  /** Whether it was used or dropped already (work chained on it must not start after that). */
  get closed(): boolean {
    return this.settledOnce;
  }

  /** Drops it: the activity is cancelled if still running, and the record says why. */
  discard(reason: string): void {
    if (this.settledOnce) return;
    this.scope.cancel();
    this.close('discarded', reason);
  }

  private close(outcome: SpeculationRecord['outcome'], reason: string | null): void {
    if (this.settledOnce) return;
    this.settledOnce = true;
    this.owner.record({ kind: this.kind, question: this.question, outcome, reason, modelCalls: this.modelCalls, ms: this.owner.now() - this.startedAt });
  }
}

/** A rewrite planned (and its question retrieved) beside the grader, for one question. */
type RewriteAhead<T> = { speculative: Speculative<T>; question: string };

/** An answer drafted beside the grader, for one question and one evidence list. */
type Draft<T> = { speculative: Speculative<T>; question: string; evidence: string };
const evidenceKey = (docs: readonly Chunk[]): string => JSON.stringify(docs);

/** A run's speculation: its level, what it started, and the report in the outcome (`run.speculation`). */
export class Speculator {
  private readonly records: SpeculationRecord[] = [];
  private draft: Draft<unknown> | null = null;
  private rewrite: RewriteAhead<unknown> | null = null;

  constructor(
    readonly level: SpeculationLevel,
    private readonly run: RagRun,
  ) {
    if (level !== 'off') run.speculation = speculationReport(level, []);
  }

  /** The run's stamp time (workflows/stamp-clock.ts). */
  now(): number {
    return stampNow(this.run);
  }

  reaches(step: Exclude<SpeculationLevel, 'off'>): boolean {
    return speculatesAt(this.level, step);
  }

  start<T>(kind: Kind, question: string, modelCalls: number, call: () => Promise<T>): Speculative<T> {
    return new Speculative(this, kind, question, modelCalls, call);
  }

  record(entry: SpeculationRecord): void {
    this.records.push(entry);
    this.run.speculation = speculationReport(this.level, this.records);
  }

  /** At `answer`: the draft for this question and evidence, started now unless one is already running. */
  draftFor<T>(question: string, docs: readonly Chunk[], write: () => Promise<T>, generation: string | null = null): void {
    if (!this.reaches('answer') || docs.length === 0) return;
    const evidence = evidenceKey(docs);
    if (this.draft && this.draft.question === question && this.draft.evidence === evidence) return;
    this.draft?.speculative.discard('the evidence changed before it was graded');
    this.draft = { speculative: this.start('answer', question, 1, write), question, evidence };
    this.draft.speculative.label = generation;
  }

  /** After a grade: a draft is kept only for route `answer` (the answer node may release it), else dropped. */
  settleDraft(route: string): void {
    if (route === 'answer' || !this.draft) return;
    this.draft.speculative.discard(`the grade routed to ${route}`);
    this.draft = null;
  }

  /** The answer node's draft: released only when written for the question and evidence the run settled on. */
  takeDraft<T>(question: string, docs: readonly Chunk[]): Speculative<T> | null {
    const draft = this.draft;
    this.draft = null;
    if (!draft) return null;
    if (draft.question !== question || draft.evidence !== evidenceKey(docs)) {
      draft.speculative.discard('written for another question or evidence');
      return null;
    }
    return draft.speculative as Speculative<T>;
  }

  /** At `rewrite`: the rewrite of this question (plan, then retrieval), started now unless one is already running. */
  rewriteFor<T>(question: string, plan: () => Promise<T>): void {
    if (!this.reaches('rewrite') || this.rewrite?.question === question) return;
    this.rewrite?.speculative.discard('the question changed before it was graded');
    this.rewrite = { speculative: this.start('rewrite', question, 1, plan), question };
  }

  /** After a grade: the rewrite is kept only for route `rewrite`, else dropped. */
  settleRewrite(route: string): void {
    if (route === 'rewrite' || !this.rewrite) return;
    this.rewrite.speculative.discard(`the grade routed to ${route}`);
    this.rewrite = null;
  }

  /** The rewrite node's speculative rewrite: released only when planned for the question being rewritten. */
  takeRewrite<T>(question: string): Speculative<T> | null {
    const rewrite = this.rewrite;
    this.rewrite = null;
    if (!rewrite) return null;
    if (rewrite.question !== question) {
      rewrite.speculative.discard('planned for another question');
      return null;
    }
    return rewrite.speculative as Speculative<T>;
  }

  /** Drops whatever is still pending (the run ends, or fails, without needing it). */
  discardPending(reason: string): void {
    this.draft?.speculative.discard(reason);
    this.draft = null;
    this.rewrite?.speculative.discard(reason);
    this.rewrite = null;
  }
}

const speculators = new WeakMap<RagRun, Speculator>();

/**
 * Attaches the run's speculation: `requested` (the workflow input's level; absent: off). A level other than off asks
 * for SPECULATION_PATCH, so histories recorded before it replay as off.
 */
export function attachSpeculator(run: RagRun, requested: SpeculationLevel | undefined): Speculator {
  const level = requested && requested !== 'off' && patchedFor(run, SPECULATION_PATCH) ? requested : 'off';
  const speculator = new Speculator(level, run);
  speculators.set(run, speculator);
  return speculator;
}

/** The run's speculator; runs without one (sub-questions) do not speculate. */
export const speculatorOf = (run: RagRun): Speculator | null => {
  const speculator = speculators.get(run);
  return speculator && speculator.level !== 'off' ? speculator : null;
};
