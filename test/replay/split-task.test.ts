import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { cachedWorkflowBundle } from '../../workers/workflow-bundle';
import { ragtimeDataConverter } from '../../client/codec/data-converter';
import { TEST_KEYRING } from '../support/codec-keys';
import { ONE_PATCH, PATCHES_AT_START } from '../../workflows/start-patches';
import { replayEach } from '../support/replay-batch';
import { localActivities, splitAfterLocalActivity } from '../support/split-workflow-task';

/*
 * A loaded worker sometimes completes a workflow task with a local activity's result and sends what the run did next
 * in the following task. A patched() call right after that activity then fails every later replay (a query of the
 * closed run, a worker restart): "Non-deprecated patch marker encountered … no corresponding change command" — the
 * make test failure of mcp-stdio's progress ('正在生成回答' missing: the queries of the closed run all failed).
 * Runs recorded since PATCHES_AT_START (workflows/start-patches.ts) decide those patches before the first local
 * activity, and replay in that shape.
 */

const HISTORY_DIR = path.join(__dirname, 'histories');
const dataConverter = ragtimeDataConverter(TEST_KEYRING);
const readHistory = (file: string) => JSON.parse(readFileSync(path.join(HISTORY_DIR, file), 'utf8'));
const workflowIdOf = (json: { events: Array<{ workflowExecutionStartedEventAttributes?: { workflowId: string } }> }): string =>
  json.events[0]!.workflowExecutionStartedEventAttributes!.workflowId;
const replay = (json: ReturnType<typeof readHistory>) => Worker.runReplayHistory({ workflowBundle, dataConverter }, historyFromJSON(json), workflowIdOf(json));

const markerOf = (id: string) => Buffer.from(JSON.stringify({ id, deprecated: false })).toString('base64');
const MARKERS_AT_START = [markerOf(PATCHES_AT_START), markerOf(ONE_PATCH)];
/** Histories recorded since the patches are decided at start (every tag from patches-at-start on, one-patch's too). */
const atStart = readdirSync(HISTORY_DIR).filter((file) => {
  const text = readFileSync(path.join(HISTORY_DIR, file), 'utf8');
  return MARKERS_AT_START.some((marker) => text.includes(marker));
});
/** Each of their local activities, as a place to cut. */
const cuts = atStart.flatMap((file) => localActivities(readHistory(file)).map(({ eventId, activityType }) => [file, activityType, eventId] as const));

let workflowBundle: WorkflowBundle;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  workflowBundle = await cachedWorkflowBundle();
}, 120_000);

test('the cut reproduces the failure: a history that asked for the planner-attempts patch after its first local activity does not replay cut there', async () => {
  const cut = splitAfterLocalActivity(readHistory('speculative-planner.planner-attempts.json'), 'openTurn');
  await expect(replay(cut)).rejects.toThrow(/Non-deprecated patch marker encountered for change ragtime-20261202-planner-attempts/);
});

test('histories of every path are recorded with the patches decided at start, and have local activities to cut after', () => {
  expect(atStart.length).toBeGreaterThanOrEqual(19);
  expect(new Set(cuts.map(([, activityType]) => activityType))).toEqual(new Set(['openTurn', 'recordTurn', 'recordAudit']));
});

describe('every cut', () => {
  /** Each cut's replay, by its place in `cuts`: null when it replayed (one replay worker for all). */
  let replayed: Map<number, string | null>;
  beforeAll(async () => {
    replayed = await replayEach(
      { workflowBundle, dataConverter },
      cuts.map(([file, , eventId], index) => ({ key: index, json: splitAfterLocalActivity(readHistory(file), { eventId }) })),
    );
  }, 300_000);

  test('the batch replayer reports what a single replay throws: the old planner-attempts history, cut', async () => {
    const cut = splitAfterLocalActivity(readHistory('speculative-planner.planner-attempts.json'), 'openTurn');
    const [error] = (await replayEach({ workflowBundle, dataConverter }, [{ key: 'bad', json: cut }])).values();
    expect(error).toMatch(/Non-deprecated patch marker encountered for change ragtime-20261202-planner-attempts/);
  });

  test.each(cuts.map((cut, index) => [...cut, index] as const))('%s replays with a task boundary after its local activity %s (event %s)', (_file, _activityType, _eventId, index) => {
    expect(replayed.get(index)).toBeNull();
  });
});
