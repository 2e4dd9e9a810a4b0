import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ragtimeDataConverter } from '../../client/codec/data-converter';
import { INTENT_PATCH, ONE_PATCH } from '../../workflows/start-patches';
import { cachedWorkflowBundle } from '../../workers/workflow-bundle';
import { TEST_KEYRING } from '../support/codec-keys';
import { replayEach } from '../support/replay-batch';

/*
 * Issue 44 §5 (INTENT_PATCH): the histories recorded for the intent path (scripts/export-replay-histories.ts intent
 * greeting conversation-meta) hold the patch's marker before their first local activity and no activity of the graph,
 * and replay; a history of a real question recorded before the patch (and every other, test/replay/replay.test.ts)
 * replays without it, since only a question the rules could answer without retrieval asks the patch.
 */

type Event = { eventType: string; markerRecordedEventAttributes?: { markerName: string; details?: Record<string, { payloads: Array<{ data: string }> }> }; activityTaskScheduledEventAttributes?: { activityType: { name: string } } };
const HISTORY_DIR = path.join(__dirname, 'histories');
const readHistory = (file: string) => JSON.parse(readFileSync(path.join(HISTORY_DIR, file), 'utf8')) as { events: Event[] };
const patchOf = (event: Event): string | null => {
  const marker = event.markerRecordedEventAttributes;
  const data = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads[0]?.data : undefined;
  return data ? (JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id: string }).id : null;
};
const isLocalActivity = (event: Event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity';

const INTENT_FILES = ['greeting.intent.json', 'conversation-meta.intent.json'];
const BEFORE_FILES = ['simple-answer.stamp-clock.json', 'follow-up.stamp-clock.json'];

test.each(INTENT_FILES)('%s: the intent marker before the first local activity, and no activity of the graph', (file) => {
  const { events } = readHistory(file);
  expect(events.map(patchOf).filter((id) => id !== null)).toEqual([ONE_PATCH, INTENT_PATCH]);
  expect(events.findIndex((event) => patchOf(event) === INTENT_PATCH)).toBeLessThan(events.findIndex(isLocalActivity));
  expect(events.filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);
});

test.each(BEFORE_FILES)('%s (a real question, recorded before the patch) holds no intent marker', (file) => {
  expect(readHistory(file).events.map(patchOf)).not.toContain(INTENT_PATCH);
});

test('the intent histories and those recorded before the patch replay against the current workflow code', async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const workflowBundle = await cachedWorkflowBundle();
  const files = [...INTENT_FILES, ...BEFORE_FILES];
  const replayed = await replayEach({ workflowBundle, dataConverter: ragtimeDataConverter(TEST_KEYRING) }, files.map((file) => ({ key: file, json: readHistory(file) })));
  expect(Object.fromEntries(replayed)).toEqual(Object.fromEntries(files.map((file) => [file, null])));
}, 300_000);
