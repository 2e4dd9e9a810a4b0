import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RagClient } from '../../client/rag-client';
import type { EvalReport } from '../../core/eval/report';
import type { Route } from '../../core/schemas/graph-values';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { REPO_ROOT } from '../knowledge/common';

/*
 * The evidence of each question's first retrieval in a `ragtime eval` report, read from the run's Temporal history
 * once and cached under .data/calibration/: what the offline grader is calibrated and fitted on
 * (bench/calibrate-offline-grader.ts, bench/grading/collect-signals.ts).
 */

export type FirstRetrieval = {
  set: string;
  id: string;
  question: string;
  answerable: boolean;
  expected_route: Route | null;
  gold_doc_ids: string[];
  docs: Chunk[];
};

export async function loadFirstRetrievals(reportFile: string, rag: () => Promise<RagClient>): Promise<FirstRetrieval[]> {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as EvalReport;
  const cacheDir = path.join(REPO_ROOT, '.data', 'calibration');
  // Keyed by knowledge base and set: one set name can be built twice (another seed) into two knowledge bases, and
  // the open sets' calibration and held-out splits share one knowledge base.
  // A set in its default knowledge base keeps the old name (`ragtime eval`'s default: eval_<set>).
  const ownKb = report.kb === `eval_${report.set.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const cache = path.join(cacheDir, `${report.kb}${ownKb ? '' : `--${report.set}`}.jsonl`);
  if (existsSync(cache)) return readFileSync(cache, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as FirstRetrieval);
  const client = await rag();
  const cases: FirstRetrieval[] = [];
  for (const [index, result] of report.questions.entries()) {
    if (!result.workflow_id) continue;
    const record = await client.getRunRecord(result.workflow_id);
    const docs = (record.retrievals[0]?.result.docs ?? []) as Chunk[];
    cases.push({
      set: report.kb, id: result.id, question: result.question, answerable: result.answerable, expected_route: result.expected_route, gold_doc_ids: result.gold_doc_ids,
      docs: docs.map(({ filename, text, doc_id, chunk_id, context }) => ({ filename, text, doc_id, chunk_id, ...(context ? { context } : {}) })),
    });
    if ((index + 1) % 20 === 0) console.error(`read ${index + 1}/${report.questions.length} runs of ${report.set}`);
  }
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cache, `${cases.map((c) => JSON.stringify(c)).join('\n')}\n`);
  return cases;
}
