import { RETRIEVAL_META_FIELDS } from '../schemas/rag-trace';
import type { RawRagTrace } from './raw-trace';

/**
 * A partial raw trace produced by one step of a run. The workflow folds fragments into the trace in a fixed
 * order, so the trace is a pure function of the steps' results and replays identically.
 */
export type TraceFragment = {
  fields: RawRagTrace;
  /** Start a new trace: the steps that create T (initial retrieval, synthesis, resume) discard the old one. */
  startsTrace?: boolean;
  /**
   * Replace the whole retrieval-meta group. ragtime's decision (DESIGN §4): each retrieval replaces all 26 R
   * fields, so no stale `rerank_error` or `candidate_k_config_error` from an earlier retrieval survives (the
   * original only overwrote non-null keys, spec §10.3).
   */
  replacesRetrievalMeta?: boolean;
};

/** Folds fragments into a trace, left to right. Returns a new trace; `undefined` field values are not written. */
export function mergeTraceFragments(trace: RawRagTrace | null, ...fragments: TraceFragment[]): RawRagTrace {
  let merged: Record<string, unknown> = { ...(trace ?? {}) };
  for (const fragment of fragments) {
    if (fragment.startsTrace) merged = {};
    if (fragment.replacesRetrievalMeta) for (const field of RETRIEVAL_META_FIELDS) delete merged[field];
    for (const [key, value] of Object.entries(fragment.fields)) {
      if (value !== undefined) merged[key] = value;
    }
  }
  return merged as RawRagTrace;
}

/** The R group as the trace writers copy it: only keys whose value is not null (spec §6.9). */
export function nonNullRetrievalMeta(meta: RawRagTrace): RawRagTrace {
  const fields: Record<string, unknown> = {};
  for (const field of RETRIEVAL_META_FIELDS) {
    const value = meta[field];
    if (value !== null && value !== undefined) fields[field] = value;
  }
  return fields as RawRagTrace;
}
