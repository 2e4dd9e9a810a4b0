/**
 * The workflows' bundle cache (workers/workflow-bundle.ts, issue 31): one bundle per version of what it is made of,
 * read back by every later worker and test file instead of bundled again.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../../../runtime/repo-root';
import { cachedWorkflowBundle, workflowBundleKey } from '../../../workers/workflow-bundle';

const CONVERTER = path.join(REPO_ROOT, 'client', 'codec', 'failure-converter.ts');

test('the key names what the bundle is made of: the same inputs give the same key, another module another key', () => {
  expect(workflowBundleKey({})).toBe(workflowBundleKey({}));
  expect(workflowBundleKey({})).toMatch(/^[0-9a-f]{32}$/);
  expect(workflowBundleKey({ failureConverterPath: CONVERTER })).not.toBe(workflowBundleKey({}));
  expect(workflowBundleKey({ workflowsPath: path.join(REPO_ROOT, 'test', 'smoke', 'fixtures', 'smoke-workflow.ts') })).not.toBe(workflowBundleKey({}));
});

test('a bundle is written under its key once and read back whole', async () => {
  const first = await cachedWorkflowBundle({ failureConverterPath: CONVERTER });
  const file = path.join(REPO_ROOT, 'node_modules', '.cache', 'ragtime', 'workflow-bundles', `${workflowBundleKey({ failureConverterPath: CONVERTER })}.js`);
  expect(existsSync(file)).toBe(true);
  expect(readFileSync(file, 'utf8')).toBe(first.code);
  // The workflow types are in it, and the failure converter it was asked for.
  expect(first.code).toContain('ragWorkflow');
  expect(first.code).toContain('encodeCommonAttributes');
  const again = await cachedWorkflowBundle({ failureConverterPath: CONVERTER });
  expect(again.code).toBe(first.code);
}, 60_000);
