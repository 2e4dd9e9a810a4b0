import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { LeafHit } from '../activities/ports';
import { fuseRrf } from '../core/retrieval/rrf';
import { DIAGNOSTICS_MAX_ITEMS } from '../core/schemas/retrieval-diagnostics';
import { resolveCandidateK } from '../core/retrieval/candidate-k';
import { cmrcArgOptions, cmrcQuestions, openCmrcIndex, optionalInt } from './knowledge/cmrc-index';
import { DEFAULT_CMRC_FILE, benchConfig, describeMachine, fmt, loadAverage, pool, progressReporter, table } from './knowledge/common';


/*
 * Retrieval quality on CMRC 2018 dev (issue 4 §6; DESIGN §5C): the 848 paragraphs indexed one document per
 * paragraph through ragtime's own ingestion code (text loader, sanitation, three-level splitter, embedder, Milvus
 * leaf store, SQL parent store) into a fresh collection; the 3,219 questions asked through the real retriever
 * (createRetriever: embedder, dense + BM25 legs, RRF, auto-merge, threshold; rerank off). A question hits when a
 * chunk of its own paragraph is retrieved. Scored from the retrieval diagnostics: the dense leg, the BM25 leg and
 * the fused list (top 10 each), and the final documents (after auto-merge and the threshold; top_k of them).
 *
 * Data: CMRC 2018 (Cui et al., EMNLP 2019), CC BY-SA 4.0, read in place from ../shared/eval/cmrc2018.
 *
 *   npx tsx bench/eval-cmrc.ts [--questions N] [--paragraphs N] [--embedding-cache FILE] [--json FILE]
 *
 * env: MILVUS_ADDRESS, EMBEDDING_BASE_URL, EMBEDDING_MODEL, EMBEDDING_DIM, RETRIEVAL_TOP_K … (ragtime's config).
 */

const HELP = `usage: npx tsx bench/eval-cmrc.ts [options]
  --data FILE              cmrc2018_dev.json (default ${path.relative(process.cwd(), DEFAULT_CMRC_FILE)})
  --paragraphs N           index only the first N paragraphs (and ask only their questions)
  --questions N            ask only the first N questions
  --collection NAME        Milvus collection, dropped first and afterwards (default bench_cmrc_eval)
  --concurrency N          questions in flight (default 2; files are indexed one at a time)
  --no-flush               query the collection as ingested (default: Flush once after indexing; see docs/EVALUATION.md)
  --embedding-cache FILE   reuse/fill an embedding cache (JSON lines; keep it outside the repository)
  --keep                   keep the collection
  --json FILE              also write the summary and per-question ranks as JSON`;

type LossRow = {
  id: string;
  denseRank: number | null;
  bm25Rank: number | null;
  fusedRank: number | null;
  goldScore: number | null;
  fifthScore: number | null;
  bothLegsAboveGold: number;
  legOverlap: number;
};

const atTop = (rank: number | null, k: number): boolean => rank !== null && rank <= k;

type Ranks = { dense: number | null; bm25: number | null; fused: number | null; final: number | null };
type Outcome = Ranks & {
  id: string;
  question: string;
  gold: string;
  mode: string;
  legSizes: [number, number, number];
  docs: number;
  merged: number;
  /** Fused top 10: how many were found by both legs, and whether one found by a single leg ranks above one found by both. */
  fusedBoth: number;
  singleAboveBoth: boolean;
};

/** 1-based rank of the first item from `gold` in `filenames`, or null. */
const rankOf = (filenames: readonly string[], gold: string): number | null => {
  const index = filenames.indexOf(gold);
  return index < 0 ? null : index + 1;
};

type Metric = { hit1: number; hit5: number; hit10: number; mrr10: number };

function metric(outcomes: readonly Outcome[], leg: keyof Ranks): Metric {
  const n = Math.max(1, outcomes.length);
  const ranks = outcomes.map((o) => o[leg]);
  const within = (k: number) => ranks.filter((r) => r !== null && r <= k).length / n;
  return {
    hit1: within(1),
    hit5: within(5),
    hit10: within(10),
    mrr10: ranks.reduce<number>((sum, r) => sum + (r !== null && r <= 10 ? 1 / r : 0), 0) / n,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ...cmrcArgOptions('bench_cmrc_eval'),
      'no-flush': { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const concurrency = Math.max(1, Number(values.concurrency));
  const collection = values.collection;
  const cacheFile = values['embedding-cache'];
  // The legs ask for 2 × candidate_k; every list of the diagnostics must be able to reach 10.
  const { candidateK } = resolveCandidateK(benchConfig({}).retrieval.topK, benchConfig({}).retrieval);
  const legLimit = 2 * candidateK;
  if (legLimit < DIAGNOSTICS_MAX_ITEMS || candidateK < DIAGNOSTICS_MAX_ITEMS) {
    throw new Error(
      `candidate_k ${candidateK} (legs ${legLimit}) is below the ${DIAGNOSTICS_MAX_ITEMS} candidates the diagnostics list: ` +
        'raise RETRIEVAL_TOP_K / RETRIEVAL_CANDIDATE_MULTIPLIER / RETRIEVAL_CANDIDATE_K so that every list can reach 10',
    );
  }
  const selection = { data: values.data, paragraphs: optionalInt(values.paragraphs), questions: optionalInt(values.questions) };
  const planned = cmrcQuestions(selection);
  const preview = benchConfig({ MILVUS_COLLECTION: collection });
  console.log(`machine: ${describeMachine()}`);
  console.log(
    `CMRC 2018 dev: ${planned.articles.length} paragraphs, ${planned.questions.length} questions; collection ${collection} at ${preview.milvus.address}; ` +
      `embeddings ${preview.embeddings.model} at ${preview.embeddings.baseUrl}; top_k ${preview.retrieval.topK}, candidate_k ${candidateK}, ` +
      `legs ${legLimit}; auto-merge ${preview.autoMerge.enabled ? `on (threshold ${preview.autoMerge.threshold})` : 'off'}; rerank off`,
  );

  // 1. Index every paragraph into a fresh collection (bench/knowledge/cmrc-index.ts).
  const cmrc = await openCmrcIndex({ ...selection, collection, flush: !values['no-flush'], embeddingCache: cacheFile });
  const { config, articles, questions, counts, passageWatch, queryWatch, indexS, flushS, embedder, leafStore } = cmrc;
  try {
    // 2. Ask every question through the real retriever.
    const outcomes: Outcome[] = new Array(questions.length);
    const askStarted = performance.now();
    const askReport = progressReporter('ask', questions.length, 15_000);
    let asked = 0;
    const short: string[] = [];
    const attemptErrors: string[] = [];
    let retried = 0;
    await pool(questions, concurrency, async (question, index) => {
      // A retrieval never throws; an attempt that failed (e.g. Milvus restarted by another user of this shared
      // server) is asked again after a pause, so that the table measures quality, not availability. Failures that
      // remain are counted and shown.
      const asking = await cmrc.retrieve(question.question, question.id);
      const { result } = asking;
      retried += asking.retried;
      const d = result.diagnostics;
      const dense = d?.legs.dense ?? [];
      const bm25 = d?.legs.bm25 ?? [];
      const fused = d?.fused ?? [];
      const meta = result.meta as Record<string, unknown>;
      for (const attempt of d?.attempts ?? []) {
        if (attempt.error !== null) attemptErrors.push(`${question.id} ${attempt.name}: ${attempt.error}`);
      }
      if (dense.length < DIAGNOSTICS_MAX_ITEMS || bm25.length < DIAGNOSTICS_MAX_ITEMS || fused.length < DIAGNOSTICS_MAX_ITEMS) {
        short.push(`${question.id} (dense ${dense.length}, bm25 ${bm25.length}, fused ${fused.length}, mode ${String(meta.retrieval_mode)})`);
      }
      outcomes[index] = {
        id: question.id,
        gold: question.gold,
        dense: rankOf(dense.map((c) => c.filename), question.gold),
        bm25: rankOf(bm25.map((c) => c.filename), question.gold),
        fused: rankOf(fused.map((c) => c.filename), question.gold),
        final: rankOf(result.docs.map((doc) => String(doc.filename)), question.gold),
        mode: String(meta.retrieval_mode),
        question: question.question,
        legSizes: [dense.length, bm25.length, fused.length],
        fusedBoth: fused.filter((c) => c.dense_rank !== null && c.bm25_rank !== null).length,
        singleAboveBoth: fused.some((c, i) => (c.dense_rank === null || c.bm25_rank === null) && fused.slice(i + 1).some((l) => l.dense_rank !== null && l.bm25_rank !== null)),
        docs: result.docs.length,
        merged: Number(meta.auto_merge_replaced_chunks ?? 0),
      };
      askReport(++asked, `query embedder ${fmt(queryWatch.ms / 1000)} s`);
    });
    const askS = (performance.now() - askStarted) / 1000;

    // 3. Where fusion lost what a leg had in its top 5: both legs in full (limit 2 × candidate_k, as the retriever
    // asks), fused again with the retriever's own fuseRrf, to see where the gold chunk was and what outranked it.
    const losses = outcomes.filter((o) => (atTop(o.dense, 5) || atTop(o.bm25, 5)) && !atTop(o.fused, 5));
    const lossRows: LossRow[] = [];
    for (const o of losses) {
      const [vector] = await embedder.embedQueries([o.question]);
      const search = { limit: legLimit, leafLevel: config.retrieval.leafRetrieveLevel };
      const [denseHits, bm25Hits] = await Promise.all([leafStore.searchDense(vector!, search), leafStore.searchBm25(o.question, search)]);
      const fusedAll = fuseRrf<LeafHit>([denseHits, bm25Hits], Number.MAX_SAFE_INTEGER);
      const goldAt = fusedAll.findIndex((f) => f.hit.filename === o.gold);
      const gold = fusedAll[goldAt];
      lossRows.push({
        id: o.id,
        denseRank: rankOf(denseHits.map((h) => String(h.filename)), o.gold),
        bm25Rank: rankOf(bm25Hits.map((h) => String(h.filename)), o.gold),
        fusedRank: goldAt < 0 ? null : goldAt + 1,
        goldScore: gold?.rrfScore ?? null,
        fifthScore: fusedAll[4]?.rrfScore ?? null,
        bothLegsAboveGold: fusedAll.slice(0, Math.max(0, goldAt)).filter((f) => f.legRanks.every((r) => r !== null)).length,
        legOverlap: fusedAll.filter((f) => f.legRanks.every((r) => r !== null)).length,
      });
    }

    // 4. Report.
    const legs = { dense: metric(outcomes, 'dense'), bm25: metric(outcomes, 'bm25'), fused: metric(outcomes, 'fused'), final: metric(outcomes, 'final') };
    const pct = (x: number) => `${(100 * x).toFixed(1)}`;
    console.log('');
    console.log(`CMRC 2018 dev, ${outcomes.length} questions over ${articles.length} paragraphs (${counts.l3} leaf chunks); % of questions:`);
    console.log(
      table(
        ['result', 'hit@1', 'hit@5', 'hit@10', 'MRR@10'],
        [
          ['dense leg (IP, top 10 of 2 × candidate_k)', legs.dense],
          ['BM25 leg (jieba, top 10 of 2 × candidate_k)', legs.bm25],
          ['fused (RRF k = 60, top 10 of candidate_k)', legs.fused],
          [`final docs (auto-merge + threshold, top_k = ${config.retrieval.topK})`, legs.final],
        ].map(([name, m]) => {
          const x = m as Metric;
          return [name as string, pct(x.hit1), pct(x.hit5), pct(x.hit10), (x.mrr10 * 100).toFixed(1)];
        }),
      ),
    );
    const at5 = (r: number | null) => atTop(r, 5);
    const count = (pred: (o: Outcome) => boolean) => outcomes.filter(pred).length;
    const analysis = {
      eitherLegAt5: count((o) => at5(o.dense) || at5(o.bm25)),
      bothLegsAt5: count((o) => at5(o.dense) && at5(o.bm25)),
      denseOnlyAt5: count((o) => at5(o.dense) && !at5(o.bm25)),
      bm25OnlyAt5: count((o) => !at5(o.dense) && at5(o.bm25)),
      denseAt5FusedNot: count((o) => at5(o.dense) && !at5(o.fused)),
      bm25At5FusedNot: count((o) => at5(o.bm25) && !at5(o.fused)),
      fusedAt5NoLegAt5: count((o) => at5(o.fused) && !at5(o.dense) && !at5(o.bm25)),
      fusedAt5FinalNot: count((o) => at5(o.fused) && !at5(o.final)),
      finalAt5FusedNot: count((o) => at5(o.final) && !at5(o.fused)),
      merged: count((o) => o.merged > 0),
      attemptErrors,
      retried,
      modes: outcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o.mode]: (acc[o.mode] ?? 0) + 1 }), {}),
      shortLists: short.length,
    };
    console.log('');
    console.log(
      table(
        ['questions (of ' + outcomes.length + ')', 'count'],
        [
          ['gold in either leg’s top 5 (oracle of the two legs)', analysis.eitherLegAt5],
          ['gold in both legs’ top 5', analysis.bothLegsAt5],
          ['only the dense leg has it in its top 5', analysis.denseOnlyAt5],
          ['only the BM25 leg has it in its top 5', analysis.bm25OnlyAt5],
          ['dense top 5 has it, fused top 5 does not', analysis.denseAt5FusedNot],
          ['BM25 top 5 has it, fused top 5 does not', analysis.bm25At5FusedNot],
          ['fused top 5 has it, neither leg’s top 5 does', analysis.fusedAt5NoLegAt5],
          ['fused top 5 has it, final top 5 does not', analysis.fusedAt5FinalNot],
          ['final top 5 has it, fused top 5 does not', analysis.finalAt5FusedNot],
          ['retrievals where auto-merge replaced chunks', analysis.merged],
        ].map(([name, n]) => [String(name), String(n)]),
      ),
    );
    console.log(`retrieval modes: ${JSON.stringify(analysis.modes)}; lists shorter than ${DIAGNOSTICS_MAX_ITEMS}: ${short.length}${short.length > 0 ? ` (e.g. ${short.slice(0, 3).join('; ')})` : ''}`);
    console.log(`questions asked again after a failed recall attempt: ${retried}; failed attempts left: ${attemptErrors.length}${attemptErrors.length > 0 ? `, e.g. ${attemptErrors.slice(0, 3).join(' | ')}` : ''}`);
    const verdicts = (['dense', 'bm25'] as const).map((leg) => `fused hit@5 ${legs.fused.hit5 >= legs[leg].hit5 ? '≥' : '<'} ${leg} hit@5 (${pct(legs.fused.hit5)} vs ${pct(legs[leg].hit5)})`);
    console.log(verdicts.join('; '));
    const orderBreaks = count((o) => o.singleAboveBoth);
    const bothInTop10 = outcomes.reduce((sum, o) => sum + o.fusedBoth, 0) / Math.max(1, outcomes.length);
    console.log(
      `fused top 10: on average ${fmt(bothInTop10, 2)} of 10 chunks were found by both legs; a chunk found by one leg only ranks above one ` +
        `found by both in ${orderBreaks} of ${outcomes.length} retrievals (with legs of ${legLimit} and k = 60, 1/(60+1) < 2/(60+${legLimit}))`,
    );
    console.log('');
    console.log(`fusion losses (a leg's top 5 has the gold paragraph, the fused top 5 does not): ${lossRows.length}; legs re-searched in full (${legLimit} each):`);
    console.log(
      table(
        ['question', 'gold rank: dense', 'BM25', 'fused', 'gold RRF score', '5th fused score', 'both-leg chunks above gold', 'chunks in both legs'],
        lossRows.map((r) => [
          r.id,
          r.denseRank === null ? `– (not in ${legLimit})` : String(r.denseRank),
          r.bm25Rank === null ? `– (not in ${legLimit})` : String(r.bm25Rank),
          r.fusedRank === null ? '–' : String(r.fusedRank),
          r.goldScore === null ? '–' : r.goldScore.toFixed(4),
          r.fifthScore === null ? '–' : r.fifthScore.toFixed(4),
          String(r.bothLegsAboveGold),
          String(r.legOverlap),
        ]),
      ),
    );
    console.log('');
    const leaves = counts.l3;
    console.log(
      `time: index ${fmt(indexS)} s (${articles.length} files, L1/L2/L3 ${counts.l1}/${counts.l2}/${leaves}; embedder ${fmt(passageWatch.ms / 1000)} s for ` +
        `${passageWatch.items} passages, ${fmt(passageWatch.items / Math.max(passageWatch.ms / 1000, 1e-9), 2)}/s)` +
        `${flushS === null ? '' : `, Flush ${fmt(flushS, 2)} s`}; ask ${fmt(askS)} s (${fmt(outcomes.length / askS, 1)} questions/s; ` +
        `embedder ${fmt(queryWatch.ms / 1000)} s for ${queryWatch.items} queries)${cacheFile ? '; embedding cache on' : ''}; load average ${loadAverage()}`,
    );
    if (values.json) {
      writeFileSync(
        values.json,
        JSON.stringify(
          { machine: describeMachine(), config: { topK: config.retrieval.topK, candidateK, legLimit, flushed: flushS !== null }, counts, legs, analysis, lossRows, time: { indexS, flushS, askS, passageEmbedS: passageWatch.ms / 1000, queryEmbedS: queryWatch.ms / 1000 }, outcomes },
          null,
          1,
        ),
      );
    }
  } finally {
    await cmrc.close({ keep: values.keep });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
