/*
 * Records syncPassWorkflow histories (issue 46) into test/replay/histories/ for the replay test: a pass that adds,
 * changes, renames and removes (`sync-pass.<tag>`), and one refused as a mass delete (`sync-pass-refused.<tag>`), on
 * the real activities over in-memory knowledge stores (test/support/ingest-doubles.ts) and a folder of its own.
 * Usage: npx tsx scripts/export-sync-replay-histories.ts [tag]   (needs a dev server: `make up`, or TEMPORAL_ADDRESS)
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { ingestDoubles, MEMORY_KB } from '../test/support/ingest-doubles';
import { openWorkflowEnv, scriptedAdapters } from '../test/workflows/harness';
import { writeReplayHistory } from './replay-history-file';

async function main(): Promise<void> {
  const tag = process.argv[2] ?? new Date().toISOString().slice(0, 10).replace(/-/g, '');
  const env = await openWorkflowEnv();
  const root = mkdtempSync(path.join(tmpdir(), 'ragtime-sync-replay-'));
  const write = (rel: string, text: string) => writeFileSync(path.join(root, rel), text);
  try {
    const taskQueue = `replay-sync-${randomUUID()}`;
    const doubles = ingestDoubles();
    const { models, retriever } = scriptedAdapters({ retrieve: () => { throw new Error('retrieval is not part of a sync pass'); } });
    const activities = createActivities({ models, retriever, ingest: doubles, sync: { knowledge: doubles.knowledge, filesDir: path.join(root, '.sync-files') } });
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: env.workflowBundle, dataConverter: env.dataConverter, activities });
    const input = { source: 'replay', path: path.join(root, 'docs'), kb: MEMORY_KB };
    mkdirSync(path.join(root, 'docs'));
    write('docs/a.md', '# A\n\nThe first paragraph of a.\n\nThe second paragraph of a.');
    write('docs/b.md', '# B\n\nThe text of b.');
    write('docs/c.txt', 'The text of c.');
    write('docs/d.txt', 'The text of d.');
    await worker.runUntil(async () => {
      await env.client.workflow.execute('syncPassWorkflow', { taskQueue, workflowId: `replay-sync-first-${tag}`, args: [input] });
      write('docs/a.md', '# A\n\nThe first paragraph of a.\n\nThe second paragraph, edited.');
      renameSync(path.join(root, 'docs/b.md'), path.join(root, 'docs/b-moved.md'));
      rmSync(path.join(root, 'docs/c.txt'));
      const changes = `replay-sync-pass-${tag}`;
      await env.client.workflow.execute('syncPassWorkflow', { taskQueue, workflowId: changes, args: [input] });
      await writeReplayHistory(env.client, changes, `sync-pass.${tag}`);
      rmSync(path.join(root, 'docs'), { recursive: true });
      mkdirSync(path.join(root, 'docs'));
      const refused = `replay-sync-refused-${tag}`;
      await env.client.workflow.execute('syncPassWorkflow', { taskQueue, workflowId: refused, args: [input] }).catch(() => undefined);
      await writeReplayHistory(env.client, refused, `sync-pass-refused.${tag}`);
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
    await env.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
