import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createJinaRerankTransport } from '../activities/adapters/jina-rerank-transport';
import { newMilvusClient } from '../activities/adapters/milvus/calls';
import { FIELD, OUTPUT_FIELDS } from '../activities/adapters/milvus/schema';
import { createMilvusLeafStore } from '../activities/adapters/milvus-leaf-store';
import { createParentStore } from '../activities/adapters/sql-parent-store';
import type { HierarchyChunk } from '../activities/ports';
import { createRetriever } from '../activities/retrieval/retrieve-documents';
import { chunkId } from '../core/ingest/hierarchy';
import type { DocumentMeta } from '../core/knowledge/document-meta';
import type { RetrievalTimings } from '../core/schemas/retrieval-diagnostics';
import {
  benchConfig,
  describeMachine,
  fmt,
  loadAverage,
  milvusLitePid,
  mixedParagraph,
  nearby,
  precomputedQueryEmbedder,
  progressReporter,
  randomUnitVector,
  rssMiB,
  seededRandom,
  summarize,
  type Summary,
  table,
  topicWords,
  zipfWord,
} from './knowledge/common';

/*
 * Retrieval latency (issue 4 §6) at 1k, 10k and 50k leaf chunks, without rerank and without the embedder: the real
 * retriever (createRetriever: hybrid dense + BM25 legs on Milvus, RRF in code, auto-merge against the SQLite parent
 * store, finalize) with an embedder that returns precomputed query vectors instantly. Each size gets its own
 * collection (bench_retrieve_1k, …) of synthetic leaves — mixed Chinese/English text, unit vectors clustered by
 * parent so that siblings are recalled together and auto-merge has work — dropped afterwards.
 * Per size: the end-to-end retrieve() latency, the per-stage timings of its diagnostics, and, to explain them, each
 * Milvus call alone (dense search, BM25 search, and a trivial RPC for the gRPC + server floor).
 *
 * Filtered retrieval (issue 44 §2): every synthetic file carries metadata (`product`: one of 10, `shelf`: one of 100),
 * and after the Flush the same queries run with and without a filter on the target's product (10 % of the leaves) and
 * shelf (1 %), interleaved query by query so that the machine's load falls on both alike; the ratio of the p50s is
 * the target's (≤ 1.2×).
 *
 *   npx tsx bench/retrieve.ts [--sizes 1000,10000,50000] [--queries 200] [--rounds 2] [--json FILE]
 *
 * env: MILVUS_ADDRESS, EMBEDDING_DIM, RETRIEVAL_TOP_K … (ragtime's config; rerank is switched off here).
 */

const HELP = `usage: npx tsx bench/retrieve.ts [options]
  --sizes 1000,10000,50000  leaf chunks per collection (default 1000,10000,50000)
  --queries N               measured retrievals per size and round (default 200)
  --ingested-queries N      measured retrievals before the Flush, one round (default 30: they are slow)
  --warmup N                unmeasured retrievals first (default 20)
  --rounds N                measured rounds per size (default 2)
  --probes N                calls of each single Milvus operation (default 100)
  --no-flush                measure only as ingested (default: as ingested, then again after an explicit Flush)
  --flush-every N           also Flush after every N leaves while building (many small segments; default 0: never)
  --keep                    keep the collections (bench_retrieve_<size>)
  --json FILE               also write the results as JSON`;

const LEAVES_PER_L2 = 4;
const L2_PER_FILE = 2;
const LEAVES_PER_FILE = LEAVES_PER_L2 * L2_PER_FILE;
const INSERT_GROUP = 1000;

type BenchLeaf = HierarchyChunk & { dense: number[]; meta: DocumentMeta };
type Corpus = { files: Array<{ filename: string; docId: string; parents: HierarchyChunk[]; leaves: BenchLeaf[] }> };
type Query = { text: string; vector: number[]; target: string; meta: DocumentMeta };

// Issue 44 §2: metadata of synthetic file f, filtered on by the filtered case (product: 10 % of the leaves, shelf: 1 %).
const PRODUCTS = 10;
const SHELVES = 100;
const benchMeta = (f: number): DocumentMeta => ({ product: [`p${f % PRODUCTS}`], shelf: [`s${f % SHELVES}`] });

const sizeName = (size: number) => (size % 1000 === 0 ? `${size / 1000}k` : String(size));

/** A synthetic hierarchy: per file one L1, two L2, four L3 leaves per L2; leaf vectors near their L2's direction. */
function* syntheticFiles(size: number, dim: number, seed: number): Generator<Corpus['files'][number]> {
  const random = seededRandom(seed);
  const fileCount = Math.ceil(size / LEAVES_PER_FILE);
  for (let f = 0; f < fileCount; f += 1) {
    const filename = `bench_${String(f).padStart(6, '0')}.txt`;
    const docId = `/bench/${filename}`;
    const base = { filename, file_type: 'TXT', file_path: docId, page_number: 0 };
    const fileTopic = topicWords(random);
    const l1Id = chunkId(filename, 0, 1, 0);
    const parents: HierarchyChunk[] = [];
    const leaves: BenchLeaf[] = [];
    const meta = benchMeta(f);
    let idx = 1;
    const l2Texts: string[] = [];
    for (let p = 0; p < L2_PER_FILE; p += 1) {
      const topic = [...fileTopic, ...topicWords(random)];
      const direction = randomUnitVector(random, dim);
      const l2Id = chunkId(filename, 0, 2, p);
      const texts: string[] = [];
      for (let l = 0; l < LEAVES_PER_L2 && f * LEAVES_PER_FILE + leaves.length < size; l += 1) {
        const text = mixedParagraph(random, topic, 250 + Math.floor(random() * 400));
        texts.push(text);
        leaves.push({
          ...base,
          chunk_id: chunkId(filename, 0, 3, p * LEAVES_PER_L2 + l),
          text,
          parent_chunk_id: l2Id,
          root_chunk_id: l1Id,
          chunk_level: 3,
          chunk_idx: 0,
          dense: nearby(direction, 0.8, random),
          meta,
        });
      }
      const l2Text = texts.join('\n');
      l2Texts.push(l2Text);
      parents.push({ ...base, chunk_id: l2Id, text: l2Text, parent_chunk_id: l1Id, root_chunk_id: l1Id, chunk_level: 2, chunk_idx: 0 });
    }
    parents.unshift({ ...base, chunk_id: l1Id, text: l2Texts.join('\n'), parent_chunk_id: '', root_chunk_id: l1Id, chunk_level: 1, chunk_idx: 0 });
    // chunk_idx counts the file's chunks depth first, as the splitter does.
    for (const chunk of [...parents, ...leaves].sort((a, b) => a.chunk_id.localeCompare(b.chunk_id))) chunk.chunk_idx = idx++;
    yield { filename, docId, parents, leaves };
  }
}

/** Queries aimed at random leaves: two pieces of the leaf's own text, two frequency-drawn words and "是什么"; the vector near the leaf's. */
function makeQueries(leaves: ReadonlyArray<{ chunk_id: string; text: string; dense: number[]; meta: DocumentMeta }>, count: number, seed: number): Query[] {
  const random = seededRandom(seed);
  const queries: Query[] = [];
  for (let i = 0; i < count; i += 1) {
    const leaf = leaves[Math.floor(random() * leaves.length)]!;
    const words = leaf.text.split(/[\s。.]+/).filter((w) => w.length > 1);
    const own = [words[Math.floor(random() * words.length)] ?? '', words[Math.floor(random() * words.length)] ?? ''].map((w) => w.slice(0, 12));
    const other = [zipfWord(random, true), zipfWord(random, false)];
    queries.push({ text: `${own[0]} ${other[0]} ${own[1]} ${other[1]} 是什么? #${i}`, vector: nearby(leaf.dense, 0.6, random), target: leaf.chunk_id, meta: leaf.meta });
  }
  return queries;
}

type StageSummaries = Record<keyof RetrievalTimings | 'wall', Summary>;

type Round = { state: string; round: number; stages: StageSummaries; load: string; failures: number; modes: Record<string, number>; merged: number; targetInDocs: number };
type Probes = { state: string } & Record<'dense' | 'bm25' | 'denseLimit10' | 'denseIdOnly' | 'bm25IdOnly' | 'bm25NoFilter' | 'bothConcurrent' | 'rpc', Summary>;

/** Filtered vs unfiltered retrieve() wall times, interleaved query by query (issue 44 §2). */
type FilterCase = { filter: string; unfiltered: Summary; filtered: Summary; ratio: number; documentsLeft: Summary; targetInDocs: number };

type SizeResult = {
  size: number;
  filterCases: FilterCase[];
  collection: string;
  build: { leaves: number; insertS: number; insertLeavesPerS: number; parentsS: number; flushS: number | null };
  rounds: Round[];
  probes: Probes[];
  milvusRssMiB: { before: number | null; afterBuild: number | null; afterQueries: number | null };
};

async function measureSize(size: number, options: { queries: number; ingestedQueries: number; warmup: number; rounds: number; probes: number; keep: boolean; flush: boolean; flushEvery: number }, dir: string): Promise<SizeResult> {
  const collection = `bench_retrieve_${sizeName(size)}`;
  const config = benchConfig({ MILVUS_COLLECTION: collection, RERANK_MODEL: '', RERANK_API_KEY: '', RERANK_BINDING_HOST: '' });
  const dim = config.embeddings.dim;
  const connection = { address: config.milvus.address, token: config.milvus.token, tls: config.milvus.tls, timeoutSeconds: Math.max(config.milvus.timeoutSeconds, 120) };
  const leafStore = createMilvusLeafStore({ ...connection, collection, dim });
  const parents = createParentStore({ sqliteFile: path.join(dir, `${collection}.sqlite`) });
  const parentStore = parents.forKb(collection);
  const client = newMilvusClient(connection);
  const milvusPid = milvusLitePid(config.milvus.address);
  const rssBefore = rssMiB(milvusPid);
  try {
    await leafStore.dropCollection().catch(() => undefined);
    await leafStore.ensureCollection();
    await parents.migrate();

    // Build: leaves in groups of 1000 (the store inserts them 50 per request), parents file by file.
    const report = progressReporter(`build ${collection}`, size, 10_000);
    const sample: BenchLeaf[] = [];
    const sampleRandom = seededRandom(size + 1);
    let pending: BenchLeaf[] = [];
    let inserted = 0;
    let insertMs = 0;
    let parentsMs = 0;
    let flushedAt = 0;
    const flush = async () => {
      const started = performance.now();
      inserted += await leafStore.insertLeaves(pending);
      insertMs += performance.now() - started;
      pending = [];
      report(inserted);
      // Optionally seal segments while building, as a Flush after every ingested file or batch would.
      if (options.flushEvery > 0 && inserted - flushedAt >= options.flushEvery) {
        await client.flushSync({ collection_names: [collection] });
        flushedAt = inserted;
      }
    };
    const ingestedAt = new Date().toISOString();
    for (const file of syntheticFiles(size, dim, size)) {
      const started = performance.now();
      await parentStore.replaceDocument(file.docId, file.parents);
      // The registry record (issue 44): what metadata filters are decided on, as ingestion writes it.
      const counts = { l1: 1, l2: file.parents.length - 1, l3: file.leaves.length };
      await parents.documents.put({ kb: collection, doc_id: file.docId, filename: file.filename, source: '', file_type: 'TXT', pages: 1, ...counts, bytes: 0, content_hash: '', ingested_at: ingestedAt, meta: file.leaves[0]!.meta });
      parentsMs += performance.now() - started;
      for (const leaf of file.leaves) {
        pending.push(leaf);
        // Reservoir sample of leaves to aim queries at.
        if (sample.length < 2000) sample.push(leaf);
        else if (sampleRandom() < 2000 / (inserted + pending.length)) sample[Math.floor(sampleRandom() * sample.length)] = leaf;
      }
      if (pending.length >= Math.min(INSERT_GROUP, options.flushEvery || INSERT_GROUP)) await flush();
    }
    if (pending.length > 0) await flush();
    const rssAfterBuild = rssMiB(milvusPid);

    const queries = makeQueries(sample, options.warmup + options.queries, size + 2);
    const retriever = createRetriever({
      embedder: precomputedQueryEmbedder(dim, new Map(queries.map((q) => [q.text, q.vector]))),
      leafStore,
      parentStore,
      rerank: createJinaRerankTransport(),
      config,
      now: () => performance.now(),
      documents: { list: () => parents.documents.list(collection) },
    });

    const measureRounds = async (state: string, count: number, roundCount: number, warmup: number): Promise<Round[]> => {
      const rounds: Round[] = [];
      for (let round = 0; round < roundCount; round += 1) {
        for (const q of queries.slice(0, warmup)) await retriever.retrieve(q.text);
        const stages: Record<keyof StageSummaries, number[]> = { wall: [], embed: [], dense: [], bm25: [], fuse: [], merge: [], rerank: [], total: [] };
        const modes: Record<string, number> = {};
        let failures = 0;
        let merged = 0;
        let targetInDocs = 0;
        const report = progressReporter(`${collection} ${state} round ${round + 1}`, count, 15_000);
        for (const [i, q] of queries.slice(options.warmup, options.warmup + count).entries()) {
          const started = performance.now();
          const result = await retriever.retrieve(q.text);
          stages.wall.push(performance.now() - started);
          const timing = result.diagnostics?.timing_ms;
          if (timing) {
            for (const key of ['embed', 'dense', 'bm25', 'fuse', 'merge', 'rerank', 'total'] as const) {
              const value = timing[key];
              if (value !== null) stages[key].push(value);
            }
          }
          const meta = result.meta as Record<string, unknown>;
          const mode = String(meta.retrieval_mode);
          modes[mode] = (modes[mode] ?? 0) + 1;
          if (result.diagnostics?.attempts.some((a) => a.error !== null)) failures += 1;
          if (Number(meta.auto_merge_replaced_chunks ?? 0) > 0) merged += 1;
          // The target leaf, or the parent or root it was merged into.
          const target = q.target;
          const parentOf = target.replace(/::l3::(\d+)$/, (_, n: string) => `::l2::${Math.floor(Number(n) / LEAVES_PER_L2)}`);
          const rootOf = target.replace(/::l3::\d+$/, '::l1::0');
          if (result.docs.some((d) => [target, parentOf, rootOf].includes(String(d.chunk_id)))) targetInDocs += 1;
          report(i + 1);
        }
        rounds.push({
          state,
          round: round + 1,
          stages: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, summarize(v)])) as StageSummaries,
          load: loadAverage(),
          failures,
          modes,
          merged,
          targetInDocs,
        });
      }
      return rounds;
    };

    // Each Milvus call alone, as the retriever makes it (limit 2 × candidate_k), plus a trivial RPC.
    const candidateLimit = 2 * Math.max(config.retrieval.topK * config.retrieval.candidateMultiplier, config.retrieval.topK);
    const probe = async (count: number, run: (q: Query) => Promise<unknown>): Promise<Summary> => {
      const times: number[] = [];
      for (let i = 0; i < count; i += 1) {
        const q = queries[options.warmup + (i % options.queries)]!;
        const started = performance.now();
        await run(q);
        times.push(performance.now() - started);
      }
      return summarize(times);
    };
    const search = { limit: candidateLimit, leafLevel: config.retrieval.leafRetrieveLevel };
    const filter = `chunk_level == ${config.retrieval.leafRetrieveLevel}`;
    // The same searches with the SDK directly, to take them apart: only the chunk id returned (no text to
    // materialize), and BM25 without the leaf filter.
    const raw = (q: Query, what: 'dense' | 'bm25', outputFields: string[], withFilter: boolean) =>
      client.search({
        collection_name: collection,
        anns_field: what === 'dense' ? FIELD.dense : FIELD.sparse,
        data: what === 'dense' ? q.vector : q.text,
        limit: candidateLimit,
        ...(withFilter ? { filter } : {}),
        output_fields: outputFields,
        metric_type: what === 'dense' ? 'IP' : 'BM25',
        params: what === 'dense' ? { ef: Math.max(64, candidateLimit) } : { drop_ratio_search: 0 },
      });
    const measureProbes = async (state: string, count: number): Promise<Probes> => ({
      state,
      dense: await probe(count, (q) => leafStore.searchDense(q.vector, search)),
      bm25: await probe(count, (q) => leafStore.searchBm25(q.text, search)),
      denseLimit10: await probe(count, (q) => leafStore.searchDense(q.vector, { ...search, limit: 10 })),
      denseIdOnly: await probe(count, (q) => raw(q, 'dense', ['chunk_id'], true)),
      bm25IdOnly: await probe(count, (q) => raw(q, 'bm25', ['chunk_id'], true)),
      bm25NoFilter: await probe(count, (q) => raw(q, 'bm25', OUTPUT_FIELDS, false)),
      bothConcurrent: await probe(count, (q) => Promise.all([leafStore.searchDense(q.vector, search), leafStore.searchBm25(q.text, search)])),
      rpc: await probe(count, () => client.getLoadState({ collection_name: collection })),
    });

    // As ingested (what ragtime's ingestion leaves: rows in Milvus Lite's in-memory memtable unless it filled up),
    // then after an explicit Flush (rows in sealed segments with cached indexes), when asked for.
    const ingested = options.flush ? options.ingestedQueries : options.queries;
    const rounds = await measureRounds('as ingested', ingested, options.flush ? 1 : options.rounds, Math.min(options.warmup, 5));
    const probes = [await measureProbes('as ingested', options.flush ? Math.min(options.probes, 10) : options.probes)];
    let flushS: number | null = null;
    if (options.flush) {
      const started = performance.now();
      await client.flushSync({ collection_names: [collection] });
      flushS = (performance.now() - started) / 1000;
      rounds.push(...(await measureRounds('after Flush', options.queries, options.rounds, options.warmup)));
      probes.push(await measureProbes('after Flush', options.probes));
    }

    // Issue 44 §2: the same queries unfiltered and filtered on the target's metadata, alternating which goes first.
    const measureFilter = async (key: 'product' | 'shelf'): Promise<FilterCase> => {
      const walls = { unfiltered: [] as number[], filtered: [] as number[] };
      const left: number[] = [];
      let targetInDocs = 0;
      const report = progressReporter(`${collection} filter ${key}`, options.queries, 15_000);
      for (const q of queries.slice(0, options.warmup)) await retriever.retrieve(q.text, undefined, { filters: { [key]: q.meta[key]! } });
      for (const [i, q] of queries.slice(options.warmup, options.warmup + options.queries).entries()) {
        const scope = { filters: { [key]: q.meta[key]! } };
        for (const filtered of i % 2 === 0 ? [false, true] : [true, false]) {
          const started = performance.now();
          const result = await retriever.retrieve(q.text, undefined, filtered ? scope : undefined);
          walls[filtered ? 'filtered' : 'unfiltered'].push(performance.now() - started);
          if (!filtered) continue;
          left.push(result.diagnostics?.filter_documents ?? 0);
          if (result.docs.some((d) => String(d.chunk_id).startsWith(q.target.split('::')[0]!))) targetInDocs += 1;
        }
        report(i + 1);
      }
      const unfiltered = summarize(walls.unfiltered);
      const filtered = summarize(walls.filtered);
      return { filter: key, unfiltered, filtered, ratio: filtered.p50 / unfiltered.p50, documentsLeft: summarize(left), targetInDocs };
    };
    const filterCases = [await measureFilter('product'), await measureFilter('shelf')];
    const rssAfterQueries = rssMiB(milvusPid);

    return {
      size,
      collection,
      filterCases,
      build: { leaves: inserted, insertS: insertMs / 1000, insertLeavesPerS: inserted / (insertMs / 1000), parentsS: parentsMs / 1000, flushS },
      rounds,
      probes,
      milvusRssMiB: { before: rssBefore, afterBuild: rssAfterBuild, afterQueries: rssAfterQueries },
    };
  } finally {
    if (!options.keep) await leafStore.dropCollection().catch(() => undefined);
    await Promise.allSettled([leafStore.close(), parents.close(), client.closeConnection()]);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000,50000' },
      queries: { type: 'string', default: '200' },
      'ingested-queries': { type: 'string', default: '30' },
      warmup: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '2' },
      probes: { type: 'string', default: '100' },
      keep: { type: 'boolean', default: false },
      'no-flush': { type: 'boolean', default: false },
      'flush-every': { type: 'string', default: '0' },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const sizes = values.sizes.split(',').map(Number);
  const options = { queries: Number(values.queries), ingestedQueries: Number(values['ingested-queries']), warmup: Number(values.warmup), rounds: Number(values.rounds), probes: Number(values.probes), keep: values.keep, flush: !values['no-flush'], flushEvery: Number(values['flush-every']) };
  const config = benchConfig({});
  console.log(`machine: ${describeMachine()}`);
  console.log(
    `Milvus ${config.milvus.address}; top_k ${config.retrieval.topK}, candidate_k ${config.retrieval.topK * config.retrieval.candidateMultiplier} ` +
      `(legs ask for ${2 * config.retrieval.topK * config.retrieval.candidateMultiplier}); auto-merge ${config.autoMerge.enabled ? `on, threshold ${config.autoMerge.threshold}` : 'off'}; rerank off; ` +
      `${options.queries} queries × ${options.rounds} rounds per size after ${options.warmup} warm-up${options.flushEvery > 0 ? `; Flush every ${options.flushEvery} leaves while building` : ''}`,
  );
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-retrieve-'));
  const results: SizeResult[] = [];
  try {
    for (const size of sizes) {
      results.push(await measureSize(size, options, dir));
      const r = results[results.length - 1]!;
      console.error(`${r.collection}: p50 ${fmt(r.rounds[0]!.stages.wall.p50)} ms`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const ms = (s: Summary) => `${fmt(s.p50)} / ${fmt(s.p95)}`;
  const ms2 = (s: Summary) => `${fmt(s.p50, 2)} / ${fmt(s.p95, 2)}`;
  console.log('');
  console.log('retrieve() latency, ms (p50 / p95), embedding excluded, rerank off:');
  console.log(
    table(
      ['leaf chunks', 'Milvus state', 'round', 'retrieve() wall', 'dense leg', 'BM25 leg', 'fuse', 'merge (SQL)', 'load avg', 'merged / target in docs / failed'],
      results.flatMap((r) =>
        r.rounds.map((round) => [
          sizeName(r.size),
          round.state,
          String(round.round),
          ms(round.stages.wall),
          ms(round.stages.dense),
          ms(round.stages.bm25),
          ms2(round.stages.fuse),
          ms2(round.stages.merge),
          round.load,
          `${round.merged} / ${round.targetInDocs} / ${round.failures} of ${round.stages.wall.n}`,
        ]),
      ),
    ),
  );
  console.log('');
  console.log('filtered retrieve() (issue 44 §2), ms (p50 / p95), the same queries unfiltered and filtered, interleaved, after the Flush:');
  console.log(
    table(
      ['leaf chunks', 'filter (share of leaves)', 'unfiltered', 'filtered', 'p50 ratio', 'documents left (p50)', 'target document in docs'],
      results.flatMap((r) =>
        r.filterCases.map((c) => [
          sizeName(r.size),
          c.filter === 'product' ? `product (1 of ${PRODUCTS})` : `shelf (1 of ${SHELVES})`,
          ms(c.unfiltered),
          ms(c.filtered),
          `${c.ratio.toFixed(2)}×`,
          fmt(c.documentsLeft.p50),
          `${c.targetInDocs} of ${c.filtered.n}`,
        ]),
      ),
    ),
  );
  console.log('');
  console.log('single Milvus calls, one at a time unless said, ms (p50 / p95); limit = 2 × candidate_k unless said:');
  console.log(
    table(
      ['leaf chunks', 'Milvus state', 'dense', 'dense, limit 10', 'dense, chunk_id only', 'BM25', 'BM25, chunk_id only', 'BM25, no leaf filter', 'dense ∥ BM25 together', 'getLoadState (RPC floor)'],
      results.flatMap((r) =>
        r.probes.map((p) => [sizeName(r.size), p.state, ms(p.dense), ms(p.denseLimit10), ms(p.denseIdOnly), ms(p.bm25), ms(p.bm25IdOnly), ms(p.bm25NoFilter), ms(p.bothConcurrent), ms(p.rpc)]),
      ),
    ),
  );
  console.log('');
  console.log(
    table(
      ['leaf chunks', 'build: insert leaves/s (precomputed vectors)', 'parents to SQLite, s', 'Flush, s', 'Milvus Lite RSS MiB (before → built → after)'],
      results.map((r) => [
        sizeName(r.size),
        fmt(r.build.insertLeavesPerS),
        fmt(r.build.parentsS, 2),
        r.build.flushS === null ? '–' : fmt(r.build.flushS, 2),
        `${r.milvusRssMiB.before ?? '?'} → ${r.milvusRssMiB.afterBuild ?? '?'} → ${r.milvusRssMiB.afterQueries ?? '?'}`,
      ]),
    ),
  );
  if (values.json) writeFileSync(values.json, JSON.stringify({ machine: describeMachine(), results }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
