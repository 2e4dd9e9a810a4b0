/*
 * Records a housekeepingWorkflow history (issue 35 §1) into test/replay/histories/ for the replay test.
 * Usage: npx tsx scripts/export-housekeeping-replay-history.ts [tag]   (needs the dev server: `make up`)
 */
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createAnswerStreamStore } from '../activities/adapters/sql-answer-stream';
import { createAuditStore } from '../activities/adapters/sql-audit-store';
import { createSessionTurnStore } from '../activities/adapters/sql-session-turns';
import { openWorkflowEnv, scriptedAdapters } from '../test/workflows/harness';
import { metaM0 } from '../test/support/scenario';
import { writeReplayHistory } from './replay-history-file';

async function main(): Promise<void> {
  const tag = process.argv[2] ?? new Date().toISOString().slice(0, 10).replace(/-/g, '');
  const env = await openWorkflowEnv();
  const location = { sqliteFile: ':memory:' };
  const housekeeping = { audit: createAuditStore({ ...location, includeContent: false }), turns: createSessionTurnStore(location), answerStream: createAnswerStreamStore(location) };
  try {
    const taskQueue = `replay-housekeeping-${randomUUID()}`;
    const { models, retriever } = scriptedAdapters({ retrieve: () => ({ docs: [], meta: metaM0(0) }) });
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: env.workflowBundle, dataConverter: env.dataConverter, activities: createActivities({ models, retriever, housekeeping }) });
    const workflowId = `replay-housekeeping-${tag}`;
    await worker.runUntil(env.client.workflow.execute('housekeepingWorkflow', { taskQueue, workflowId, args: [{ retentionDays: 30 }] }));
    await writeReplayHistory(env.client, workflowId, `housekeeping.${tag}`);
  } finally {
    await Promise.allSettled([housekeeping.audit.close(), housekeeping.turns.close(), housekeeping.answerStream.close()]);
    await env.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
