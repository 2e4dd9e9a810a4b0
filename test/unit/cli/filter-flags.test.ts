import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runRagtimeInProcess } from '../../support/cli-run';

/*
 * Issue 44 §2: a bad --filter (ask, chat, search), --meta (ingest) or docs meta is a typed error, exit 2, and nothing
 * starts: every service address points at a port nobody listens on, so a command that got further would fail
 * otherwise (exit 4).
 */

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'ragtime-filter-flags-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const unreachable = () => ({
  ...process.env,
  RAGTIME_DATA_DIR: dataDir,
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  MILVUS_ADDRESS: '127.0.0.1:1',
  EMBEDDING_BASE_URL: 'http://127.0.0.1:1/v1',
});

test.each([
  [['ask', 'How do I reset it?', '--filter', 'version>=2'], '--filter "version>=2": unknown operator ">=" (only = is supported)'],
  [['ask', 'How do I reset it?', '--filter', 'product=atlas', '--filter', 'product=zephyr'], 'key "product" is given twice'],
  [['chat', '--filter', 'product'], '--filter "product": no "=" in it'],
  [['search', 'reset', '--filter', 'product='], '--filter "product=": no value after "="'],
  [['ingest', 'nowhere.md', '--meta', 'doc_id=x'], '"doc_id" is the document\'s id, not metadata'],
  [['docs', 'meta', 'a.md', 'frob', 'x'], 'docs meta: unknown action "frob"; use set key=value or rm key'],
  [['docs', 'meta', 'a.md', 'set', 'product:atlas'], 'unknown operator ":"'],
])('%j exits 2 before connecting to anything', async (args, message) => {
  const run = await runRagtimeInProcess(args, unreachable());
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('ragtime: INVALID_INPUT: ');
  expect(run.stderr).toContain(message);
  expect(run.stdout).toBe('');
}, 30_000);
