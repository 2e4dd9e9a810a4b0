import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { JSON_SCHEMAS } from '../../../activities/adapters/openai-chat-models';
import { REPO_ROOT } from '../../../runtime/repo-root';

// Issue 34: every structured output ragtime asks for becomes a grammar on the local model service. One that did not
// (standalone_question's maxLength 2000: "Failed to parse grammar") made the server answer 400, and the adapter's
// ladder then left json_schema for every call of that model — the planner's enum unenforced, every follow-up failed.
// node-llama-cpp's prebuilt binary builds the grammars, in a process of its own; no model is loaded.
test('every structured output the adapter sends builds a grammar', () => {
  const probe = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test', 'support', 'llm-grammars-probe.ts')], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  const line = probe.stdout.trim().split('\n').at(-1) ?? '';
  expect([probe.status, line.startsWith('{')]).toEqual([0, true]);
  expect(JSON.parse(line)).toEqual(Object.fromEntries(Object.keys(JSON_SCHEMAS).map((name) => [name, 'ok'])));
}, 60_000);
