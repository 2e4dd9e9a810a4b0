import type { RagConfig } from '../../core/config';
import { resolveCandidateK } from '../../core/retrieval/candidate-k';
import { diagnosticError, fusedCandidates, legCandidates } from '../../core/retrieval/diagnostics';
import {
  EMBEDDING_FAILED,
  type FullRetrievalMeta,
  failedRetrievalMeta,
  RETRIEVE_FAILED,
  type RecallMode,
  type RetrievalBasis,
} from '../../core/retrieval/retrieval-meta';
import { fuseRrf } from '../../core/retrieval/rrf';
import { filterClauses, withDocIds } from '../../core/retrieval/metadata-filter';
import { ACL_KEY } from '../../core/knowledge/document-access';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { RetrievalResult } from '../../core/trace/writers';
import type { Embedder, LeafHit, LeafStore, ParentStore, RerankTransport, RetrievalScope, Retriever } from '../ports';
import { retrieverResult, retrieverStart } from '../telemetry/openinference';
import { addAttributes, inSpan } from '../telemetry/spans';
import { DiagnosticsRecorder } from './diagnostics-recorder';
import { type DocumentMetas, planFilter } from './plan-filter';
import { finalizeRecall } from './finalize-retrieval';

export type RetrieverDeps = {
  embedder: Embedder;
  leafStore: LeafStore;
  parentStore: ParentStore;
  rerank: RerankTransport;
  config: RagConfig;
  /** Milliseconds on any monotonic clock (e.g. `performance.now`); only differences are used, for diagnostics. */
  now: () => number;
  /** The knowledge base's documents and their metadata, which metadata filters are decided on (plan-filter.ts). */
  documents?: DocumentMetas;
};

const effectiveMode = (meta: FullRetrievalMeta): 'hybrid' | 'dense_fallback' | 'failed' =>
  meta.retrieval_mode === 'hybrid' || meta.retrieval_mode === 'dense_fallback' ? meta.retrieval_mode : 'failed';

/** spec §6.3.1: each hybrid leg asks for twice the candidate pool; fusion keeps candidate_k. */
const HYBRID_LEG_FACTOR = 2;

/** issue 44 §4: the groups of a forced access clause, for the diagnostics and the audit; nothing without one. */
const accessGroupsOf = (forced: RetrievalScope['forced']): { access_groups?: string[] } => {
  const clause = forced?.find((one) => one.key === ACL_KEY);
  return clause ? { access_groups: [...clause.anyOf] } : {};
};

const bestScore = (hits: readonly Chunk[]): number | null =>
  hits.reduce<number | null>((best, hit) => (typeof hit.score === 'number' && (best === null || hit.score > best) ? hit.score : best), null);

/**
 * `retrieve_documents` (spec §6.1) behind the Retriever port: one query embedding; hybrid recall (dense leg + BM25
 * leg, fused with RRF in code, DESIGN §4) and post-processing; on any error there, dense recall with the same
 * embedding and post-processing again; on an error there too, the failure meta. Never throws: every
 * infrastructure error is reported in the meta (and, in full, in the diagnostics).
 */
export function createRetriever(deps: RetrieverDeps): Retriever {
  const { config } = deps;
  const topK = config.retrieval.topK;

  const policy = { includeContent: config.telemetry.includeContent };

  const untraced: Retriever = {
    async retrieve(query: string, _kb?: string, scope: RetrievalScope = {}): Promise<RetrievalResult> {
      // issue 44 §2–§3: the caller's filters and the documents a person chose (as `doc_id`), then the forced clauses;
      // all of them go into both searches.
      const filters = withDocIds(scope.filters, scope.docIds);
      const clauses = filterClauses(filters, scope.forced);
      // Decided on the registry when it can be (plan-filter.ts), beside the query embedding.
      const plan = clauses.length > 0 ? planFilter(clauses, deps.leafStore, deps.documents) : null;
      const passing = plan ? plan.then((decided) => decided.left) : null;
      const recorder = new DiagnosticsRecorder(deps.now);
      const { candidateK, meta: candidateMeta } = resolveCandidateK(topK, config.retrieval);
      const basis: RetrievalBasis = {
        topK,
        candidateK,
        candidateMeta,
        leafRetrieveLevel: config.retrieval.leafRetrieveLevel,
        autoMerge: config.autoMerge,
        rerank: config.rerank,
      };
      // issue 42 §1: the knowledge base's chunking, read beside the query embedding (a metadata call to Milvus).
      const chunking = deps.leafStore.chunking?.().catch(() => null);
      const done = async (docs: Chunk[], meta: FullRetrievalMeta): Promise<RetrievalResult> => {
        const diagnostics = recorder.build();
        const filtered = { filters: filters ?? null, effective_mode: effectiveMode(meta), ...(passing ? await passing : {}), ...accessGroupsOf(scope.forced) };
        return { docs, meta, diagnostics: { ...diagnostics, ...(chunking === undefined ? {} : { chunking_version: await chunking }), ...filtered } };
      };
      const finalizeDeps = { parentStore: deps.parentStore, rerank: deps.rerank, basis, recorder, policy };
      const leafLevel = basis.leafRetrieveLevel;

      // spec §6.1 step 2: one embedding call; on any error, no docs and the failure meta.
      let vector: number[];
      try {
        const vectors = await recorder.time('embed', () => deps.embedder.embedQueries([query]));
        if (vectors.length !== 1 || !vectors[0]) throw new Error(`the embedder returned ${vectors.length} vectors for 1 query`);
        vector = vectors[0];
      } catch (error) {
        recorder.data.embedding_error = diagnosticError(error);
        return done([], failedRetrievalMeta(basis, EMBEDDING_FAILED));
      }

      /** One recall attempt and its post-processing, recorded in `attempts`. Rethrows the attempt's error. */
      const attempt = async (mode: RecallMode, recall: () => Promise<Chunk[]>) => {
        const startedAt = recorder.clock();
        let recalled: Chunk[] = [];
        try {
          recalled = await recall();
          const result = await finalizeRecall(finalizeDeps, query, recalled, mode);
          recorder.data.attempts.push({
            name: mode,
            candidate_count: recalled.length,
            usable: result.docs.length > 0,
            top_score: bestScore(recalled),
            duration_ms: recorder.elapsedSince(startedAt),
            error: null,
          });
          return result;
        } catch (error) {
          recorder.data.attempts.push({
            name: mode,
            candidate_count: recalled.length,
            usable: false,
            top_score: bestScore(recalled),
            duration_ms: recorder.elapsedSince(startedAt),
            error: diagnosticError(error),
          });
          throw error;
        }
      };

      // spec §6.3.1: both legs with the leaf filter and limit 2 × candidate_k, then RRF (k = 60) to candidate_k.
      const hybridRecall = async (): Promise<Chunk[]> => {
        const filter = plan ? await plan : null;
        if (filter?.nothingPasses) return [];
        const search = { limit: HYBRID_LEG_FACTOR * candidateK, leafLevel, ...filter?.search };
        const [dense, bm25] = await Promise.allSettled([
          recorder.time('dense', () => deps.leafStore.searchDense(vector, search)),
          recorder.time('bm25', () => deps.leafStore.searchBm25(query, search)),
        ]);
        if (dense.status === 'fulfilled') recorder.data.legs.dense = legCandidates(dense.value);
        if (bm25.status === 'fulfilled') recorder.data.legs.bm25 = legCandidates(bm25.value);
        if (dense.status === 'rejected') throw dense.reason;
        if (bm25.status === 'rejected') throw bm25.reason;
        const fused = recorder.timeSync('fuse', () => fuseRrf<LeafHit>([dense.value, bm25.value], candidateK));
        recorder.data.fused = fusedCandidates(fused);
        // spec §6.3.1: a hybrid hit's score is its fused RRF score.
        return fused.map(({ hit, rrfScore }) => ({ ...hit, score: rrfScore }));
      };

      // spec §6.3.2: one dense search, limit candidate_k, score = inner product.
      const denseRecall = async (): Promise<Chunk[]> => {
        const filter = plan ? await plan : null;
        if (filter?.nothingPasses) return [];
        const hits = await recorder.time('dense', () =>
          deps.leafStore.searchDense(vector, { limit: candidateK, leafLevel, ...filter?.search }),
        );
        recorder.data.legs.dense_fallback = legCandidates(hits);
        return hits.map((hit) => ({ ...hit }));
      };

      try {
        const hybrid = await attempt('hybrid', hybridRecall);
        return done(hybrid.docs, hybrid.meta);
      } catch {
        // spec §6.1 step 4: any error of the hybrid attempt → dense fallback with the same embedding.
      }
      try {
        const fallback = await attempt('dense_fallback', denseRecall);
        return done(fallback.docs, fallback.meta);
      } catch {
        // spec §6.1 step 5: both attempts failed; the errors are in the diagnostics' attempts.
        return done([], failedRetrievalMeta(basis, RETRIEVE_FAILED));
      }
    },
  };

  return {
    // One RETRIEVER span per retrieval (OpenInference): document ids and scores; the query and texts only with content.
    retrieve: (query, kb, scope) =>
      inSpan('retrieve', { attributes: () => retrieverStart(query, policy), policy }, async (span) => {
        const result = await untraced.retrieve(query, kb, scope);
        addAttributes(span, () => retrieverResult(result.docs, result.meta, policy));
        return result;
      }),
  };
}
