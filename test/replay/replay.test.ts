import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

/*
 * Determinism: every committed history (test/replay/histories/, written by scripts/export-replay-histories.ts)
 * must replay against the current workflow code. A change that alters the recorded commands fails here; put such
 * a change behind patched('ragtime-<yyyymmdd>-<what>') and record a new history next to the old ones.
 */

const HISTORY_DIR = path.join(__dirname, 'histories');
const files = readdirSync(HISTORY_DIR).filter((file) => file.endsWith('.json')).sort();

let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
}, 120_000);

test('there are histories to replay, one per path of the graph', () => {
  expect(files.length).toBeGreaterThanOrEqual(10);
});

test.each(files)('replays %s without nondeterminism', async (file) => {
  const json = JSON.parse(readFileSync(path.join(HISTORY_DIR, file), 'utf8'));
  // Child workflow ids derive from the parent's id, so replay under the recorded id.
  const workflowId: string = json.events[0].workflowExecutionStartedEventAttributes.workflowId;
  await Worker.runReplayHistory({ workflowBundle }, historyFromJSON(json), workflowId);
});
