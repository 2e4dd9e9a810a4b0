/**
 * createRetriever wired for tests: the real Jina rerank transport (recording what it is asked to send) against a
 * loopback rerank server, in-memory doubles of the LeafStore/ParentStore ports, a scripted embedder and a clock
 * that ticks 1 ms per reading, so diagnostics timings are exact.
 *
 * Default corpus: t1, t2, t3 under three different parents (no merge). QUERY embeds to e1, so the dense leg ranks
 * t1 (1.0), t2 (0.8), t3 (0.6); the BM25 leg ranks t2 (2 terms), t1 (1 term). RRF: t1 = 1/61 + 1/62 = t2, a tie
 * broken by the smaller pk → candidates [t1, t2, t3] with rrf_rank 1, 2, 3 (t3 = 1/63). RETRIEVAL_TOP_K = 2, so
 * candidate_k = 6 and each hybrid leg asks for 12.
 */
import { createJinaRerankTransport } from '../../activities/adapters/jina-rerank-transport';
import type { ParentStore, RerankTransport } from '../../activities/ports';
import { createRetriever } from '../../activities/retrieval/retrieve-documents';
import { parseConfig } from '../../core/config';
import { FakeLeafStore, FakeParentStore, fakeLeaf, ScriptedEmbedder } from './fake-knowledge-store';
import type { LoopbackRerankServer } from './rerank-server';

export const QUERY = 'alpha beta';
export const QUERY_VECTOR = [1, 0, 0, 0];
export const LEAVES = [
  fakeLeaf(1, { text: 't1', dense: [1, 0, 0, 0], terms: ['alpha'] }),
  fakeLeaf(2, { text: 't2', dense: [0.8, 0.6, 0, 0], terms: ['alpha', 'beta'] }),
  fakeLeaf(3, { text: 't3', dense: [0.6, 0.8, 0, 0] }),
];
/** The fused score of t1 and of t2. */
export const T1_T2 = 1 / 61 + 1 / 62;
export const RERANK_MODEL = 'jina-reranker-v2-base-multilingual';

export type HarnessOptions = {
  env?: Record<string, string>;
  /** Configure rerank against the loopback server. */
  rerank?: boolean;
  leaves?: FakeLeafStore;
  parents?: ParentStore;
};

export function retrieverHarness(server: LoopbackRerankServer, options: HarnessOptions = {}) {
  const rerankEnv = options.rerank
    ? { RERANK_MODEL, RERANK_BINDING_HOST: server.host, RERANK_API_KEY: 'test-key' }
    : {};
  const config = parseConfig({ RETRIEVAL_TOP_K: '2', ...rerankEnv, ...options.env });
  const embedder = new ScriptedEmbedder(4, { [QUERY]: QUERY_VECTOR });
  const leafStore = options.leaves ?? new FakeLeafStore(LEAVES);
  const parentStore: ParentStore = options.parents ?? new FakeParentStore();
  const transport = createJinaRerankTransport();
  const sent: Array<Parameters<RerankTransport['post']>[0]> = [];
  const rerank: RerankTransport = {
    post: (request) => {
      sent.push(request);
      return transport.post(request);
    },
  };
  let tick = 0;
  const retriever = createRetriever({ embedder, leafStore, parentStore, rerank, config, now: () => (tick += 1) });
  return { retriever, embedder, leafStore, parentStore, sent, config };
}
