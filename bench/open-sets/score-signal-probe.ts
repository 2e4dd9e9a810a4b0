import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { RagClient } from '../../client/rag-client';
import type { EvalReport } from '../../core/eval/report';
import { loadConfig } from '../../runtime/load-config';

/*
 * A probe (issue 26 §3): could a retrieval score tell answerable from unanswerable questions where the offline
 * grader's word coverage cannot? For each question of `ragtime eval` reports, the best dense (cosine) and BM25 scores
 * of its first retrieval, read from the run's history, and the ROC AUC of each as a separator of answerable (gold in
 * the set) from unanswerable questions: 0.5 is chance, 1 a perfect threshold exists.
 *
 *   npx tsx bench/open-sets/score-signal-probe.ts .data/eval/debian-faq/report.json […]
 */

/** Probability that a random answerable question scores above a random unanswerable one (ties count half). */
export function auc(positive: readonly number[], negative: readonly number[]): number {
  let wins = 0;
  for (const p of positive) for (const n of negative) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return positive.length * negative.length === 0 ? Number.NaN : wins / (positive.length * negative.length);
}

async function main(): Promise<void> {
  const { positionals } = parseArgs({ allowPositionals: true });
  const config = loadConfig(process.env);
  const client = await RagClient.connect({ address: config.temporal.address, namespace: config.temporal.namespace, codec: config.codec });
  for (const file of positionals) {
    const report = JSON.parse(readFileSync(file, 'utf8')) as EvalReport;
    const rows: Array<{ answerable: boolean; dense: number; bm25: number }> = [];
    for (const q of report.questions) {
      if (!q.workflow_id) continue;
      const legs = (await client.getRunRecord(q.workflow_id)).retrievals[0]?.result.diagnostics?.legs;
      const top = (list: ReadonlyArray<{ score?: number | null }> | null | undefined) => Math.abs(list?.[0]?.score ?? 0);
      rows.push({ answerable: q.answerable, dense: top(legs?.dense ?? legs?.dense_fallback), bm25: top(legs?.bm25) });
    }
    const of = (answerable: boolean, key: 'dense' | 'bm25') => rows.filter((r) => r.answerable === answerable).map((r) => r[key]);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    for (const key of ['dense', 'bm25'] as const) {
      console.log(`${report.set} (${rows.length}): best ${key} score, answerable mean ${mean(of(true, key)).toFixed(3)}, unanswerable mean ${mean(of(false, key)).toFixed(3)}, AUC ${auc(of(true, key), of(false, key)).toFixed(3)}`);
    }
  }
  await client.close?.();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
