import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { gradeInput } from '../../activities/adapters/offline-chat-models';
import { createMeaningReader } from '../../activities/adapters/meaning-reader';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import { RagClient } from '../../client/rag-client';
import { gradeSignals, type GradeSignals, type ReadSentence } from '../../core/grading/signals';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { loadConfig } from '../../runtime/load-config';
import { loadFirstRetrievals } from './first-retrievals';

/*
 * The grading signals (core/grading/signals.ts) of every question's first retrieval in `ragtime eval` reports, one
 * JSON line each, for bench/grading/fit-decision.ts (issue 42 §3). The evidence is read from the runs' histories
 * (bench/grading/first-retrievals.ts); the sentences are embedded by the configured embeddings server, as a worker
 * would.
 *
 *   npx tsx bench/grading/collect-signals.ts --report .data/eval/<set>/report.json [--report …] --out FILE
 */

export type SignalRow = {
  set: string;
  id: string;
  question: string;
  answerable: boolean;
  expected_route: string | null;
  gold_doc_ids: string[];
  gold_in_evidence: boolean;
  /** The evidence and its sentences with their similarity to the question: signals are recomputed from them. */
  docs: Chunk[];
  sentences: ReadSentence[];
};

/** The signals of a collected row under the current code (core/grading/signals.ts). */
export function signalsOf(row: Pick<SignalRow, 'question' | 'docs' | 'sentences'>): GradeSignals {
  return gradeSignals(gradeInput(row.question, row.docs), row.sentences);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { report: { type: 'string', multiple: true }, out: { type: 'string' }, set: { type: 'string' } }, strict: true });
  if (!values.report?.length || !values.out) throw new Error('usage: collect-signals.ts --report FILE [--report FILE …] --out FILE.jsonl');
  const config = loadConfig(process.env);
  const { baseUrl, model, dim, msPerText, concurrency } = config.embeddings;
  const meaning = createMeaningReader(createOpenAiEmbedder({ baseUrl, model, dim, msPerText, concurrency }));
  let client: RagClient | null = null;
  const rag = async () => (client ??= await RagClient.connect({ address: config.temporal.address, namespace: config.temporal.namespace, codec: config.codec }));
  const rows: SignalRow[] = [];
  for (const report of values.report) {
    const cases = await loadFirstRetrievals(report, rag);
    const setName = values.set ?? path.basename(path.dirname(report));
    for (const [i, c] of cases.entries()) {
      const input = gradeInput(c.question, c.docs);
      const sentences = await meaning.readSentences(input.question, c.docs);
      const gold = new Set(c.gold_doc_ids);
      // A merged parent carries no doc_id; its chunk id starts with the document's (core/ingest/hierarchy.ts chunkId).
      const documentOf = (doc: Chunk) => doc.doc_id ?? doc.chunk_id?.split('::')[0] ?? doc.filename ?? '';
      rows.push({
        set: setName, id: c.id, question: c.question, answerable: c.answerable, expected_route: c.expected_route, gold_doc_ids: c.gold_doc_ids,
        gold_in_evidence: c.docs.some((doc) => gold.has(documentOf(doc))), docs: c.docs, sentences,
      });
      if ((i + 1) % 25 === 0) console.error(`${setName}: ${i + 1}/${cases.length}`);
    }
  }
  mkdirSync(path.dirname(values.out), { recursive: true });
  writeFileSync(values.out, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
  console.log(`${rows.length} rows → ${values.out}`);
  process.exit(0);
}

if (require.main === module) main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
