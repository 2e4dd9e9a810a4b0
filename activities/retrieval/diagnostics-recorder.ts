import { DIAGNOSTICS_MAX_ITEMS, type RetrievalDiagnostics, type RetrievalStage } from '../../core/schemas/retrieval-diagnostics';

type Recorded = Omit<RetrievalDiagnostics, 'timing_ms'>;

const rounded = (ms: number): number => Math.round(Math.max(0, ms) * 1000) / 1000;

/**
 * Collects one retrieval's diagnostics while it runs (core/schemas/retrieval-diagnostics.ts). Time comes from the
 * injected clock; each stage's time is summed over attempts. Later attempts overwrite the lists of the stages they
 * reach, so `fused`, `merge_groups` and `reranked` describe the last attempt that got that far.
 */
export class DiagnosticsRecorder {
  private readonly startedAt: number;
  private readonly stages = new Map<RetrievalStage, number>();
  readonly data: Recorded = {
    embedding_error: null,
    legs: { dense: null, bm25: null, dense_fallback: null },
    fused: [],
    merge_groups: [],
    reranked: [],
    attempts: [],
  };

  constructor(private readonly now: () => number) {
    this.startedAt = now();
  }

  /** Runs `work` and adds its duration to `stage`, whether it succeeds or throws. */
  async time<T>(stage: RetrievalStage, work: () => Promise<T>): Promise<T> {
    const started = this.now();
    try {
      return await work();
    } finally {
      this.add(stage, this.now() - started);
    }
  }

  timeSync<T>(stage: RetrievalStage, work: () => T): T {
    const started = this.now();
    try {
      return work();
    } finally {
      this.add(stage, this.now() - started);
    }
  }

  /** Milliseconds since `since` on the injected clock, for attempt durations. */
  elapsedSince(since: number): number {
    return rounded(this.now() - since);
  }

  clock(): number {
    return this.now();
  }

  private add(stage: RetrievalStage, ms: number): void {
    this.stages.set(stage, (this.stages.get(stage) ?? 0) + ms);
  }

  /** A snapshot of what was recorded, bounded, with the total time so far. */
  build(): RetrievalDiagnostics {
    const stage = (name: RetrievalStage): number | null => {
      const ms = this.stages.get(name);
      return ms === undefined ? null : rounded(ms);
    };
    return {
      ...this.data,
      legs: { ...this.data.legs },
      merge_groups: this.data.merge_groups.slice(0, DIAGNOSTICS_MAX_ITEMS),
      attempts: [...this.data.attempts],
      timing_ms: {
        embed: stage('embed'),
        dense: stage('dense'),
        bm25: stage('bm25'),
        fuse: stage('fuse'),
        merge: stage('merge'),
        rerank: stage('rerank'),
        total: rounded(this.now() - this.startedAt),
      },
    };
  }
}
