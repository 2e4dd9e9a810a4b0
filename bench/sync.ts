import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createSyncPassStore } from '../activities/adapters/sql-sync-passes';
import { openKnowledgeStores } from '../activities/knowledge/open-knowledge';
import type { Embedder } from '../activities/ports';
import type { SyncPassReport } from '../core/sync/sync-io';
import { cachedWorkflowBundle } from '../workers/workflow-bundle';
import { startPrivateDevServer } from '../test/support/private-dev-server';
import { startPrivateMilvus } from '../test/support/private-services';
import { scriptedAdapters } from '../test/workflows/harness';
import { describeMachine, fmt, mixedParagraph, randomEmbedder, seededRandom, table, topicWords } from './knowledge/common';

/*
 * A sync pass's cost (issue 46): a folder of N Markdown files (default 1,000, three paragraphs each) synced into a
 * fresh knowledge base by syncPassWorkflow on an in-process worker, against a Temporal dev server and Milvus Lite of
 * the bench's own: the first pass (everything added), unchanged passes (the target: ≤ 10 s for 1,000 files), and a
 * pass after one paragraph of one file was edited (how many leaves it embeds, of the file's leaves). The embedder
 * returns random vectors at once and counts what it is sent: an unchanged pass embeds nothing, so its time is the
 * listing, the hashing and the workflow; the first pass's time is not the embedder's (see bench/ingest.ts for that).
 *
 *   npx tsx bench/sync.ts [--files N] [--passes N] [--concurrency N]
 */

const { values } = parseArgs({ options: { files: { type: 'string', default: '1000' }, passes: { type: 'string', default: '3' }, concurrency: { type: 'string', default: '4' } } });
const FILES = Number(values.files);
const PASSES = Number(values.passes);
const CONCURRENCY = Number(values.concurrency);
const DIM = 384;

/** The random embedder, counting the texts it embeds. */
function countingEmbedder(): Embedder & { texts: number } {
  const inner = randomEmbedder(DIM);
  const counting = { ...inner, texts: 0, embedPassages: async (texts: string[]) => ((counting.texts += texts.length), inner.embedPassages(texts)) };
  return counting;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-sync-'));
  const [server, milvus] = await Promise.all([startPrivateDevServer(tmp), startPrivateMilvus(path.join(tmp, 'milvus'))]);
  const embedder = countingEmbedder();
  const kb = `bench_sync_${Date.now()}`;
  const { knowledge } = openKnowledgeStores({ milvus: { address: milvus.address, collection: kb, timeoutSeconds: 60 }, database: { url: undefined, dataDir: tmp }, embeddings: { dim: DIM } }, { sqliteFile: path.join(tmp, 'ragtime.sqlite'), embedder });
  const passes = createSyncPassStore({ sqliteFile: path.join(tmp, 'audit.sqlite') });
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const root = path.join(tmp, 'docs');
  const random = seededRandom(46);
  const paragraphs = new Map<string, string[]>();
  for (let i = 0; i < FILES; i += 1) {
    const rel = `section-${String(Math.floor(i / 100)).padStart(2, '0')}/doc-${String(i).padStart(4, '0')}.md`;
    const topic = topicWords(random);
    const body = [0, 1, 2].map(() => mixedParagraph(random, topic, 700));
    paragraphs.set(rel, body);
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), `# Document ${i}\n\n${body.join('\n\n')}`);
  }
  try {
    const taskQueue = `bench-sync-${randomUUID()}`;
    const { models, retriever } = scriptedAdapters({ retrieve: () => { throw new Error('no retrieval in a sync pass'); } });
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowBundle: await cachedWorkflowBundle(),
      activities: createActivities({ models, retriever, ingest: { knowledge }, sync: { knowledge, passes, filesDir: path.join(tmp, 'sync-files') } }),
    });
    const input = { source: 'bench', path: root, kb, concurrency: CONCURRENCY };
    await knowledge.create(kb);
    const pass = async (label: string) => {
      const before = embedder.texts;
      const started = performance.now();
      const report = (await client.workflow.execute('syncPassWorkflow', { taskQueue, workflowId: `bench-sync-${label}-${randomUUID()}`, args: [input] })) as SyncPassReport;
      return { label, wall: (performance.now() - started) / 1000, report, embedded: embedder.texts - before };
    };
    const rows: Array<Awaited<ReturnType<typeof pass>>> = [];
    await worker.runUntil(async () => {
      rows.push(await pass('first'));
      for (let i = 1; i <= PASSES; i += 1) rows.push(await pass(`unchanged-${i}`));
      const edited = paragraphs.keys().next().value!;
      const body = paragraphs.get(edited)!;
      writeFileSync(path.join(root, edited), `# Document 0\n\n${[body[0], `${body[1]!.slice(0, 300)} An edited sentence in the middle. ${body[1]!.slice(300)}`, body[2]].join('\n\n')}`);
      rows.push(await pass('one-paragraph-edit'));
    });
    const record = (await knowledge.documents.list(kb)).find((doc) => doc.doc_id === `bench/${paragraphs.keys().next().value!}`)!;
    console.log(`bench/sync.ts: ${FILES} files, concurrency ${CONCURRENCY}; ${describeMachine()}`);
    console.log(
      table(
        ['pass', 'wall s', 'report s', 'added', 'changed', 'unchanged', 'leaves embedded (report)', 'texts sent to the embedder'],
        rows.map(({ label, wall, report, embedded }) => [label, fmt(wall, 2), fmt(report.duration_ms / 1000, 2), String(report.added), String(report.changed), String(report.unchanged), String(report.leaves_embedded), String(embedded)]),
      ),
    );
    const unchanged = rows.filter((row) => row.label.startsWith('unchanged')).map((row) => row.wall);
    console.log(`unchanged pass over ${FILES} files: ${unchanged.map((s) => fmt(s, 2)).join(', ')} s (target ≤ 10 s: ${Math.max(...unchanged) <= 10 ? 'met' : 'MISSED'})`);
    const edit = rows.at(-1)!.report;
    console.log(`one-paragraph edit: ${edit.leaves_embedded} of the file's ${record.l3} leaves embedded again, ${edit.leaves_reused} kept`);
  } finally {
    await passes.close();
    await knowledge.close();
    await nativeConnection.close();
    await connection.close();
    await Promise.allSettled([server.stop(), milvus.stop()]);
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
