import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { newMilvusClient } from '../activities/adapters/milvus/calls';
import { rowsOf, toLeafHit } from '../activities/adapters/milvus/rows';
import { FIELD, OUTPUT_FIELDS } from '../activities/adapters/milvus/schema';
import { createMilvusLeafStore } from '../activities/adapters/milvus-leaf-store';
import type { LeafHit } from '../activities/ports';
import { fuseRrf } from '../core/retrieval/rrf';
import { benchConfig, describeMachine, fmt, loadAverage, nearby, seededRandom, summarize, table, zipfWord } from './knowledge/common';

/*
 * Ways to run the hybrid recall's two legs (issue 17 §4), side by side on one collection that bench/retrieve.ts
 * built and kept (`--keep`): each query runs every option, in alternating order, and each option's fused top
 * candidate_k is compared with today's (both legs at once, all fields, RRF in code) — ids, texts and scores, or
 * with --ids-only ids and texts. Queries are shaped as bench/retrieve.ts shapes them, aimed at sampled leaves.
 *
 *   npx tsx bench/retrieve.ts --sizes 10000 --keep ... && npx tsx bench/retrieve-options.ts --collection bench_retrieve_10k
 */

const HELP = `usage: npx tsx bench/retrieve-options.ts --collection NAME [--queries 30] [--ids-only]`;

const CANDIDATE_K = 24; // the defaults: top_k 8 × multiplier 3
const LEG_LIMIT = 2 * CANDIDATE_K; // spec §6.3.1
const LEAF_LEVEL = 3;
const FILTER = `chunk_level == ${LEAF_LEVEL}`;

type Query = { text: string; vector: number[] };
type Fused = Array<{ id: string; chunk_id: string; text: string; score: number }>;

const fusedEntry = (hit: LeafHit, score: number) => ({ id: String(hit.id), chunk_id: String(hit.chunk_id), text: String(hit.text), score });
const fuse = (dense: LeafHit[], bm25: LeafHit[]): Fused => fuseRrf<LeafHit>([dense, bm25], CANDIDATE_K).map(({ hit, rrfScore }) => fusedEntry(hit, rrfScore));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { collection: { type: 'string' }, queries: { type: 'string', default: '30' }, 'ids-only': { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help || !values.collection) {
    console.log(HELP);
    return;
  }
  const collection = values.collection;
  const count = Number(values.queries);
  const config = benchConfig({ MILVUS_COLLECTION: collection });
  const connection = { address: config.milvus.address, token: config.milvus.token, tls: config.milvus.tls, timeoutSeconds: 120 };
  const store = createMilvusLeafStore({ ...connection, collection, dim: config.embeddings.dim });
  const client = newMilvusClient(connection);
  const search = { limit: LEG_LIMIT, leafLevel: LEAF_LEVEL };
  try {
    const sample = await client.query({ collection_name: collection, filter: FILTER, output_fields: ['text', FIELD.dense], limit: 500 });
    const random = seededRandom(7);
    const queries: Query[] = Array.from({ length: count + 3 }, (_, i) => {
      const leaf = sample.data[Math.floor(random() * sample.data.length)] as { text: string; [FIELD.dense]: number[] };
      const words = leaf.text.split(/[\s。.]+/).filter((w) => w.length > 1);
      const own = [words[Math.floor(random() * words.length)] ?? '', words[Math.floor(random() * words.length)] ?? ''].map((w) => w.slice(0, 12));
      return { text: `${own[0]} ${zipfWord(random, true)} ${own[1]} ${zipfWord(random, false)} 是什么? #${i}`, vector: nearby(leaf[FIELD.dense], 0.6, random) };
    });

    // A leg with only the primary key and score returned (the texts are fetched once, for the fused hits).
    const idOnlyLeg = async (q: Query, leg: 'dense' | 'bm25'): Promise<LeafHit[]> => {
      const reply = await client.search({
        collection_name: collection,
        anns_field: leg === 'dense' ? FIELD.dense : FIELD.sparse,
        data: leg === 'dense' ? q.vector : q.text,
        limit: LEG_LIMIT,
        filter: FILTER,
        output_fields: [FIELD.id],
        metric_type: leg === 'dense' ? 'IP' : 'BM25',
        params: leg === 'dense' ? { ef: 64 } : { drop_ratio_search: 0 },
      });
      // Milvus Lite's BM25 scores are negative, best first (see milvus-leaf-store.ts).
      return rowsOf(reply.results).map((row) => toLeafHit(row, leg === 'dense' ? Number(row.score) : Math.abs(Number(row.score))));
    };
    const withTexts = async (fused: Fused): Promise<Fused> => {
      const reply = await client.query({ collection_name: collection, filter: `${FIELD.id} in [${fused.map((h) => h.id).join(',')}]`, output_fields: OUTPUT_FIELDS });
      const byId = new Map(reply.data.map((row) => [String(row[FIELD.id]), row]));
      return fused.map((h) => ({ ...h, chunk_id: String(byId.get(h.id)?.chunk_id), text: String(byId.get(h.id)?.text) }));
    };

    const options: Record<string, (q: Query) => Promise<Fused>> = {
      'legs at once (today)': async (q) => {
        const [dense, bm25] = await Promise.all([store.searchDense(q.vector, search), store.searchBm25(q.text, search)]);
        return fuse(dense, bm25);
      },
      'legs one after the other': async (q) => {
        const dense = await store.searchDense(q.vector, search);
        return fuse(dense, await store.searchBm25(q.text, search));
      },
      'one hybridSearch (RRFRanker 60)': async (q) =>
        (await store.hybridSearchMilvusRrf(q.vector, q.text, { limit: CANDIDATE_K, leafLevel: LEAF_LEVEL })).map((h) => fusedEntry(h, Number(h.score))),
      'id-only legs + one fetch': async (q) => withTexts(fuse(...(await Promise.all([idOnlyLeg(q, 'dense'), idOnlyLeg(q, 'bm25')])))),
    };
    const legsAlone: Record<string, (q: Query) => Promise<unknown>> = {
      'BM25 leg alone': (q) => store.searchBm25(q.text, search),
      'dense leg alone': (q) => store.searchDense(q.vector, search),
    };

    const all = { ...options, ...legsAlone };
    const names = Object.keys(all);
    for (const q of queries.slice(0, 3)) for (const run of Object.values(all)) await run(q);
    const times = new Map(names.map((name) => [name, [] as number[]]));
    const differing = new Map(names.map((name) => [name, 0]));
    const key = (fused: Fused) => JSON.stringify(values['ids-only'] ? fused.map(({ id, chunk_id, text }) => [id, chunk_id, text]) : fused);
    const loadBefore = loadAverage();
    for (const [i, q] of queries.slice(3).entries()) {
      const results = new Map<string, unknown>();
      // Alternate the order so that neither option always runs first on a warm cache.
      for (const name of i % 2 === 0 ? names : [...names].reverse()) {
        const started = performance.now();
        results.set(name, await all[name]!(q));
        times.get(name)!.push(performance.now() - started);
      }
      const today = key(results.get('legs at once (today)') as Fused);
      for (const name of Object.keys(options)) if (key(results.get(name) as Fused) !== today) differing.set(name, differing.get(name)! + 1);
    }
    console.log(`machine: ${describeMachine()}`);
    console.log(`${collection}: ${count} queries; load ${loadBefore} → ${loadAverage()}; compared: ${values['ids-only'] ? 'ids and texts' : 'ids, texts and scores'}`);
    console.log(
      table(
        ['option', 'p50 ms', 'p95 ms', 'mean ms', 'fused top-k differs from today'],
        names.map((name) => {
          const s = summarize(times.get(name)!);
          return [name, fmt(s.p50), fmt(s.p95), fmt(s.mean), name in options ? `${differing.get(name)} of ${count}` : '–'];
        }),
      ),
    );
  } finally {
    await Promise.allSettled([store.close(), client.closeConnection()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
