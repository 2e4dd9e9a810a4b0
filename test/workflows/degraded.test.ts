import { RagClient } from '../../client/rag-client';
import { EMBEDDING_FAILED, RETRIEVE_FAILED } from '../../core/retrieval/retrieval-meta';
import type { RetrievalDiagnostics } from '../../core/schemas/retrieval-diagnostics';
import { RagOutcome } from '../../core/schemas/run-io';
import type { RetrievalResult } from '../../core/trace/writers';
import { chunk, grade, metaM0, plannerResult } from '../support/scenario';
import { createWorker, newTaskQueue, openWorkflowEnv, scriptedAdapters, sessionId, type WorkflowEnv } from './harness';

/*
 * Issue 14 §2: a retrieval that could not read the knowledge base (the embeddings server or Milvus down) keeps the
 * spec's route and trace — an empty retrieval routes to no_knowledge — and the outcome says `degraded`, so nobody
 * reads "the knowledge base has no answer" when it could not be read. The real-service version (the embeddings
 * server gone under a running worker, the CLI exiting 4) is in test/e2e/cli.test.ts.
 */

const diagnostics = (embeddingError: string | null, attemptError: string | null): RetrievalDiagnostics => ({
  embedding_error: embeddingError,
  legs: { dense: null, bm25: null, dense_fallback: null },
  fused: [],
  merge_groups: [],
  reranked: [],
  attempts: attemptError === null ? [] : [{ name: 'hybrid', candidate_count: 0, usable: false, top_score: null, duration_ms: 3, error: attemptError }, { name: 'dense_fallback', candidate_count: 0, usable: false, top_score: null, duration_ms: 2, error: attemptError }],
  timing_ms: { embed: 1, dense: null, bm25: null, fuse: null, merge: null, rerank: null, total: 6 },
});

/** What the retriever returns when it cannot embed the query (spec §6.1 step 2). */
const embeddingDown: RetrievalResult = {
  docs: [],
  meta: { ...metaM0(0), retrieval_mode: 'failed', rerank_error: EMBEDDING_FAILED } as RetrievalResult['meta'],
  diagnostics: diagnostics('Connection error. (connect ECONNREFUSED 127.0.0.1:8765)', null),
};
/** What it returns when both recall attempts fail (spec §6.1 step 5): Milvus is down. */
const milvusDown: RetrievalResult = {
  docs: [],
  meta: { ...metaM0(0), retrieval_mode: 'failed', rerank_error: RETRIEVE_FAILED } as RetrievalResult['meta'],
  diagnostics: diagnostics(null, '14 UNAVAILABLE: No connection established'),
};

let env: WorkflowEnv;
beforeAll(async () => {
  env = await openWorkflowEnv();
}, 120_000);
afterAll(async () => env?.close());

async function run(script: Parameters<typeof scriptedAdapters>[0], question: string): Promise<RagOutcome> {
  const taskQueue = newTaskQueue();
  const worker = await createWorker(env, scriptedAdapters(script), taskQueue);
  const outcome = await worker.runUntil(RagClient.fromClient(env.client, taskQueue).ask(question, { sessionId: sessionId() }));
  return RagOutcome.parse(outcome);
}

test('Milvus down on a simple question: completed, no_knowledge, the spec\'s failure trace, and degraded (knowledge_store)', async () => {
  const outcome = await run({ retrieve: () => milvusDown, grades: {} }, '丹瑾是什么属性？');
  expect(outcome).toMatchObject({ status: 'completed', route: 'no_knowledge', retrieval_status: 'no_knowledge', docs: [] });
  expect(outcome.rag_trace).toMatchObject({ retrieval_mode: 'failed', rerank_error: RETRIEVE_FAILED });
  expect(outcome.degraded).toEqual({ component: 'knowledge_store', reason: '14 UNAVAILABLE: No connection established', retrieval: 'initial', retrievals: 1, of: 1 });
});

test('a healthy run is not degraded', async () => {
  const outcome = await run(
    { retrieve: () => ({ docs: [chunk('丹瑾是湮灭属性角色。')], meta: metaM0(1) }), grades: { '丹瑾是什么属性？': [grade('strong', 'sufficient', 'none', 'answer', 0.9)] } },
    '丹瑾是什么属性？',
  );
  expect(outcome).toMatchObject({ status: 'completed', route: 'answer', degraded: null });
});

test('one sub-question of a complex run could not embed: the other answers, and the run says 1 of 2 retrievals failed', async () => {
  const subs = ['丹瑾的战斗定位', '卡卡罗的战斗定位'];
  const outcome = await run(
    {
      planner: plannerResult('complex', '涉及多维度比较', subs),
      retrieve: (query) => (query === subs[0] ? embeddingDown : { docs: [chunk('卡卡罗是主输出。')], meta: metaM0(1) }),
      grades: { [subs[1] as string]: [grade('strong', 'sufficient', 'none', 'answer', 0.9)] },
    },
    '比较丹瑾与卡卡罗的战斗定位',
  );
  expect(outcome).toMatchObject({ status: 'completed', route: 'answer' });
  expect(outcome.degraded).toEqual({
    component: 'embeddings',
    reason: 'Connection error. (connect ECONNREFUSED 127.0.0.1:8765)',
    retrieval: 'sub_question',
    retrievals: 1,
    of: 2,
  });
});
