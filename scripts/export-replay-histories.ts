/*
 * Records one history per path of the graph into test/replay/histories/ for the replay test.
 * Usage: npx tsx scripts/export-replay-histories.ts [tag] [scenario…]   (needs the dev server: `make up`)
 * Files are named <scenario>[.sub-<i>].<tag>.json (tag default: today, yyyymmdd); naming scenarios records only
 * those. Older files stay: they keep proving that histories recorded before a patched() change still replay.
 * Record a new tag after such a change. Payloads are encrypted with the test keyring (test/support/codec-keys.ts),
 * as every workflow test's are; histories recorded before encryption (tags initial, memo-models) are plain.
 */
import { createSessionTurnStore } from '../activities/adapters/sql-session-turns';
import { REPLAY_SCENARIOS } from '../test/replay/scenarios';
import { openWorkflowEnv, withWorker } from '../test/workflows/harness';
import { writeReplayHistory } from './replay-history-file';

async function main(): Promise<void> {
  const tag = process.argv[2] ?? new Date().toISOString().slice(0, 10).replace(/-/g, '');
  const only = process.argv.slice(3);
  const unknown = only.filter((name) => !REPLAY_SCENARIOS.some((scenario) => scenario.name === name));
  if (unknown.length > 0) throw new Error(`no replay scenario named ${unknown.join(', ')}`);
  const env = await openWorkflowEnv();
  try {
    for (const scenario of REPLAY_SCENARIOS.filter(({ name }) => only.length === 0 || only.includes(name))) {
      const turns = scenario.withTurns ? createSessionTurnStore({ sqliteFile: ':memory:' }) : undefined;
      const workflowIds = await withWorker(env, scenario.script, async (rag) => {
        const result = await scenario.run(rag, `replay-${scenario.name}-${tag}`);
        const ids = [result.workflowId];
        // Sub-question children have their own histories (ids <parent>/sub-<i>).
        for (let i = 1; i <= 4; i += 1) {
          const childId = `${result.workflowId}/sub-${i}`;
          const exists = await env.client.workflow.getHandle(childId).describe().then(() => true, () => false);
          if (exists) ids.push(childId);
        }
        // Histories are complete only once the runs have closed.
        await Promise.all(ids.map((id) => env.client.workflow.getHandle(id).result().catch(() => undefined)));
        return ids;
      }, { turns });
      await turns?.close();
      for (const [index, workflowId] of workflowIds.entries()) {
        await writeReplayHistory(env.client, workflowId, `${scenario.name}${index === 0 ? '' : `.sub-${index}`}.${tag}`);
      }
    }
  } finally {
    await env.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
