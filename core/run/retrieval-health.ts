import { EMBEDDING_FAILED, RETRIEVE_FAILED } from '../retrieval/retrieval-meta';
import type { Degraded } from '../schemas/run-io';
import type { RetrievalResult } from '../trace/writers';

/** Why a retrieval came back empty because the knowledge base could not be read; null when it could be read. */
export function retrievalFailure(result: RetrievalResult): Pick<Degraded, 'component' | 'reason'> | null {
  if (result.meta.retrieval_mode !== 'failed') return null;
  if (result.meta.rerank_error === EMBEDDING_FAILED) {
    return { component: 'embeddings', reason: result.diagnostics?.embedding_error ?? EMBEDDING_FAILED };
  }
  return { component: 'knowledge_store', reason: result.diagnostics?.attempts.at(-1)?.error ?? RETRIEVE_FAILED };
}

/** What a sub-question run hands its parent: its own tally, so the parent's outcome counts every retrieval. */
export type RetrievalHealthReport = { degraded: Degraded | null; retrievals: number };

/**
 * Counts a run's retrievals and those that could not read the knowledge base (issue 14 §2). The first failure is
 * the one reported: later ones usually repeat it (the same service is down), and the count says how many there were.
 */
export class RetrievalHealth {
  private total = 0;
  private failures = 0;
  private first: Pick<Degraded, 'component' | 'reason' | 'retrieval'> | null = null;

  note(result: RetrievalResult, purpose: Degraded['retrieval']): void {
    this.total += 1;
    const failure = retrievalFailure(result);
    if (failure === null) return;
    this.failures += 1;
    this.first ??= { ...failure, retrieval: purpose };
  }

  adopt(report: RetrievalHealthReport): void {
    this.total += report.retrievals;
    if (report.degraded === null) return;
    this.failures += report.degraded.retrievals;
    this.first ??= { component: report.degraded.component, reason: report.degraded.reason, retrieval: report.degraded.retrieval };
  }

  degraded(): Degraded | null {
    return this.first === null ? null : { ...this.first, retrievals: this.failures, of: this.total };
  }

  report(): RetrievalHealthReport {
    return { degraded: this.degraded(), retrievals: this.total };
  }
}
