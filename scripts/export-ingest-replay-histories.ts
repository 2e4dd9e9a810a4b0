/*
 * Records ingestWorkflow histories into test/replay/histories/ for the replay test (the RAG graph's are written by
 * scripts/export-replay-histories.ts). One batch: two good files, a corrupt and an empty one, through the real
 * ingestion activity on in-memory stores (test/support/ingest-doubles.ts). Payloads are encrypted with the test keyring.
 * Usage: npx tsx scripts/export-ingest-replay-histories.ts <tag>   (needs the dev server: `make up`)
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { repoPath } from '../runtime/repo-root';
import { ingestDoubles } from '../test/support/ingest-doubles';
import { openWorkflowEnv, scriptedAdapters } from '../test/workflows/harness';
import { writeReplayHistory } from './replay-history-file';

const FIXTURES = repoPath('test', 'fixtures', 'docs');
const BATCH = ['guide.md', 'corrupt.pdf', 'blank.txt', 'plain.txt'].map((name) => path.join(FIXTURES, name));

async function main(): Promise<void> {
  const tag = process.argv[2];
  if (!tag) throw new Error('usage: npx tsx scripts/export-ingest-replay-histories.ts <tag>');
  const env = await openWorkflowEnv();
  try {
    const taskQueue = `replay-ingest-${randomUUID()}`;
    const { models, retriever } = scriptedAdapters({ retrieve: () => { throw new Error('retrieval is not part of ingestion'); } });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: env.workflowBundle,
      dataConverter: env.dataConverter,
      activities: createActivities({ models, retriever, ingest: ingestDoubles() }),
    });
    const workflowId = `replay-ingest-batch-${tag}`;
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('ingestWorkflow', { taskQueue, workflowId, args: [{ files: BATCH, batchLabel: 'replay' }] });
      await handle.result();
    });
    await writeReplayHistory(env.client, workflowId, `ingest-batch.${tag}`);
  } finally {
    await env.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
