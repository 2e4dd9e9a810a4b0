import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { cachedWorkflowBundle } from '../../workers/workflow-bundle';
import { ENCODING_ENCRYPTED } from '../../client/codec/aes-gcm-codec';
import { ragtimeDataConverter } from '../../client/codec/data-converter';
import { TEST_CODEC_KEY_2, TEST_KEYRING, testKeyring } from '../support/codec-keys';
import { replayEach } from '../support/replay-batch';

/*
 * Determinism: every committed history (test/replay/histories/, written by scripts/export-replay-histories.ts, and
 * for ingestWorkflow by scripts/export-ingest-replay-histories.ts)
 * must replay against the current workflow code. A change that alters the recorded commands fails here; put such
 * a change behind patched('ragtime-<yyyymmdd>-<what>') and record a new history next to the old ones.
 *
 * Payload encryption: the replayer decodes with the codec and the test keyring, as the workers do. Histories
 * recorded before encryption (tags initial, memo-models) hold plain payloads, which the codec passes through; the
 * `encrypted` ones were recorded with the test keyring and replay only with it.
 */

const HISTORY_DIR = path.join(__dirname, 'histories');
const files = readdirSync(HISTORY_DIR).filter((file) => file.endsWith('.json')).sort();
const dataConverter = ragtimeDataConverter(TEST_KEYRING);

let workflowBundle: WorkflowBundle;
const readHistory = (file: string) => JSON.parse(readFileSync(path.join(HISTORY_DIR, file), 'utf8'));
/** Each file's replay: null when it replayed, else the error (one replay worker for all: test/support/replay-batch.ts). */
let replayed: Map<string, string | null>;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  workflowBundle = await cachedWorkflowBundle();
  replayed = await replayEach({ workflowBundle, dataConverter }, files.map((file) => ({ key: file, json: readHistory(file) })));
}, 300_000);

// Child workflow ids derive from the parent's id, so replay under the recorded id.
const workflowIdOf = (json: { events: Array<{ workflowExecutionStartedEventAttributes: { workflowId: string } }> }): string =>
  json.events[0]!.workflowExecutionStartedEventAttributes.workflowId;
const inputEncodingOf = (file: string): string => {
  const payload = readHistory(file).events[0].workflowExecutionStartedEventAttributes.input.payloads[0];
  return Buffer.from(payload.metadata.encoding, 'base64').toString('utf8');
};

test('there are histories to replay, one per path of the graph', () => {
  expect(files.length).toBeGreaterThanOrEqual(10);
});

test('histories of both kinds are committed: plain ones from before encryption, and encrypted ones', () => {
  const encodings = new Set(files.map(inputEncodingOf));
  expect(encodings).toEqual(new Set(['json/plain', ENCODING_ENCRYPTED]));
  for (const file of files.filter((name) => name.includes('.encrypted.'))) expect(inputEncodingOf(file)).toBe(ENCODING_ENCRYPTED);
});

test.each(files)('replays %s without nondeterminism', (file) => {
  expect(replayed.get(file)).toBeNull();
});

test('an encrypted history does not replay with a keyring that lacks its key', async () => {
  const file = files.find((name) => name.includes('.encrypted.'));
  if (file === undefined) throw new Error('no encrypted history is committed (record one: scripts/export-replay-histories.ts encrypted …)');
  const json = readHistory(file);
  // With the codec only: ragtime's converter would also seal the failure's message (issue 14 §6), which is the text
  // this test reads. The replayer quotes the codec's message with escaped quotes: key \"test-k1\", which ….
  const wrongKeys = { payloadCodecs: ragtimeDataConverter(testKeyring(TEST_CODEC_KEY_2)).payloadCodecs };
  await expect(Worker.runReplayHistory({ workflowBundle, dataConverter: wrongKeys }, historyFromJSON(json), workflowIdOf(json))).rejects.toThrow(
    /key \W*test-k1\W*, which this process does not hold/,
  );
});
