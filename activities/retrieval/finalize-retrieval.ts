import { SpanStatusCode } from '@opentelemetry/api';
import { AUTO_MERGE_PASSES, type AutoMergeMeta, autoMergeMeta, mergePass, qualifyingParentIds } from '../../core/retrieval/auto-merge';
import { exceptionText, mergeGroups, rerankedCandidates } from '../../core/retrieval/diagnostics';
import {
  finalizeRetrieval,
  numberCandidates,
  type RerankStep,
  rerankAttempted,
  rerankSkipped,
} from '../../core/retrieval/finalize';
import { parseRerankReply, type RerankReplyOutcome, rerankRequestBody } from '../../core/retrieval/rerank-response';
import type { FullRetrievalMeta, RecallMode, RetrievalBasis } from '../../core/retrieval/retrieval-meta';
import type { MergeGroup } from '../../core/schemas/retrieval-diagnostics';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { ParentStore, RerankTransport } from '../ports';
import { rerankerResult, rerankerStart } from '../telemetry/openinference';
import { addAttributes, inSpan, type SpanContentPolicy } from '../telemetry/spans';
import type { DiagnosticsRecorder } from './diagnostics-recorder';

/**
 * A rerank reply of the wrong shape (e.g. a JSON array body). The original's rerank error handling does not catch
 * it, so it fails the whole attempt and the retrieval falls back to dense recall (spec §6.1 step 4, U08).
 */
export class MalformedRerankReplyError extends Error {
  override readonly name = 'MalformedRerankReplyError';
}

export type FinalizeDeps = {
  parentStore: ParentStore;
  rerank: RerankTransport;
  basis: RetrievalBasis;
  recorder: DiagnosticsRecorder;
  /** What the rerank span may carry (RAGTIME_OTEL_CONTENT). */
  policy: SpanContentPolicy;
};

/** spec §6.5.1: two merge passes, each fetching only the parents that qualify. Store errors propagate. */
async function autoMerge(
  deps: FinalizeDeps,
  recalled: Chunk[],
): Promise<{ chunks: Chunk[]; merge: AutoMergeMeta; groups: MergeGroup[] }> {
  const { enabled, threshold } = deps.basis.autoMerge;
  const replacedPerPass: number[] = [];
  const groups: MergeGroup[] = [];
  let chunks = recalled;
  if (enabled && chunks.length > 0) {
    for (let pass = 0; pass < AUTO_MERGE_PASSES; pass += 1) {
      const ids = qualifyingParentIds(chunks, threshold);
      // spec §6.5.1 step 2: nothing qualifies → the pass returns its input, count 0, without a store lookup.
      if (ids.length === 0) {
        replacedPerPass.push(0);
        continue;
      }
      const parents = await deps.parentStore.getByIds(ids);
      const parentsById = new Map<string, Chunk>(parents.filter((p) => p.chunk_id).map((p) => [p.chunk_id, { ...p }]));
      groups.push(...mergeGroups(chunks, parentsById, threshold));
      const result = mergePass(chunks, parentsById, threshold);
      chunks = result.chunks;
      replacedPerPass.push(result.replaced);
    }
  }
  return { chunks, merge: autoMergeMeta({ enabled, threshold, replacedPerPass, resultCount: chunks.length }), groups };
}

/** spec §6.6.2: skip, or send one request and read the reply; transport errors become rerank_error (step 8). */
async function rerank(deps: FinalizeDeps, query: string, numbered: Chunk[]): Promise<RerankStep> {
  const { rerank: settings, topK } = deps.basis;
  if (numbered.length === 0 || !settings.enabled || settings.model === null || settings.apiKey === null) {
    return rerankSkipped(numbered, topK);
  }
  const { model, apiKey } = settings;
  // One RERANKER span per request sent (OpenInference): input and output document ids and scores.
  return inSpan('rerank', { attributes: () => rerankerStart(model, topK, query, numbered, deps.policy), policy: deps.policy }, async (span) => {
    let outcome: RerankReplyOutcome;
    try {
      const reply = await deps.rerank.post({
        endpoint: settings.endpoint,
        apiKey,
        timeoutSeconds: settings.timeoutSeconds,
        body: rerankRequestBody(model, query, numbered, topK),
      });
      outcome = parseRerankReply(reply, numbered, topK);
    } catch (error) {
      outcome = { kind: 'failed', error: exceptionText(error) };
    }
    if (outcome.kind === 'malformed') throw new MalformedRerankReplyError(outcome.reason);
    const step = rerankAttempted(numbered, topK, outcome);
    if (step.error === null) addAttributes(span, () => rerankerResult(step.docs, deps.policy));
    // The retrieval goes on with the score-sorted candidates (spec §6.6.2 step 8); the rerank call itself failed.
    else if (span.isRecording()) span.setStatus({ code: SpanStatusCode.ERROR, message: step.error }).setAttribute('error.type', 'rerank_failed');
    return step;
  });
}

/**
 * `_finalize_retrieval` (spec §6.4): auto-merge, number, rerank (with its top-K cut), threshold, meta. Throws when
 * the parent store fails or the rerank reply is malformed; the caller turns that into the next fallback.
 */
export async function finalizeRecall(
  deps: FinalizeDeps,
  query: string,
  recalled: Chunk[],
  mode: RecallMode,
): Promise<{ docs: Chunk[]; meta: FullRetrievalMeta }> {
  const { recorder } = deps;
  const merged = await recorder.time('merge', () => autoMerge(deps, recalled));
  recorder.data.merge_groups = merged.groups;
  const numbered = numberCandidates(merged.chunks);
  const step = await recorder.time('rerank', () => rerank(deps, query, numbered));
  recorder.data.reranked = step.applied && step.error === null ? rerankedCandidates(step.docs) : [];
  return finalizeRetrieval(deps.basis, {
    mode,
    recallCount: recalled.length,
    merge: merged.merge,
    candidateCount: numbered.length,
    rerank: step,
  });
}
