import type { RagOutcome } from '../../core/schemas/run-io';

/** An outcome without what differs between two runs of the same question (ids, timings): for fault-free comparisons. */
export const comparableOutcome = (outcome: RagOutcome) => ({
  status: outcome.status,
  route: outcome.route,
  retrieval_status: outcome.retrieval_status,
  docs: outcome.docs,
  trace: outcome.rag_trace,
  degraded: outcome.degraded,
  answer: outcome.answer?.text ?? null,
});
