import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { repoPath } from '../runtime/repo-root';

/** Where the replay test (test/replay/replay.test.ts) reads committed histories from. */
const HISTORY_DIR = repoPath('test', 'replay', 'histories');

/** Fetches a closed run's history and writes it as test/replay/histories/<name>.json. */
export async function writeReplayHistory(client: Client, workflowId: string, name: string): Promise<void> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  mkdirSync(HISTORY_DIR, { recursive: true });
  const file = path.join(HISTORY_DIR, `${name}.json`);
  writeFileSync(file, `${historyToJSON(history)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
}
