import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DefaultLogger, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { REPO_ROOT } from '../runtime/repo-root';

/*
 * ragtime's workflows, bundled once per version of their code and kept on disk (node_modules/.cache/ragtime): the
 * bundle (webpack over workflows/, core/ and the SDK) takes about 3 s of CPU, and every worker start and every test
 * file that runs workflows used to pay it again (issue 31; Temporal's docs recommend prebuilt bundles for production
 * start-up too). The key is a hash of everything the bundle is made of: the files of workflows/ and core/ (the
 * workflow code imports only those and, for types alone, activities/), the converter and interceptor modules named,
 * and package-lock.json (the SDK's and zod's versions). Anything else changes nothing the bundle holds.
 */

export type WorkflowBundleOptions = {
  /** The data converter's failure converter module (client/codec: the codec seals failure messages). */
  failureConverterPath?: string;
  /** Workflow interceptor modules (OpenTelemetry's, when tracing is on). */
  workflowInterceptorModules?: string[];
  /** Where the workflows are (default: ragtime's). A test's own fixtures bundle the same way. */
  workflowsPath?: string;
};

const CACHE_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'ragtime', 'workflow-bundles');
const SOURCE_DIRS = ['workflows', 'core'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    .sort();
}

/** The bundle's key: what it is made of, hashed (file paths relative to the repository, and their bytes). */
export function workflowBundleKey(options: WorkflowBundleOptions): string {
  const hash = createHash('sha256');
  const workflowsPath = options.workflowsPath ?? require.resolve('../workflows');
  const modules = [options.failureConverterPath, ...(options.workflowInterceptorModules ?? [])].filter((m): m is string => m !== undefined);
  hash.update(JSON.stringify({ workflowsPath: path.relative(REPO_ROOT, workflowsPath), modules: modules.map((m) => path.relative(REPO_ROOT, m)) }));
  const files = [
    ...SOURCE_DIRS.flatMap((dir) => filesUnder(path.join(REPO_ROOT, dir))),
    ...(path.relative(REPO_ROOT, workflowsPath).startsWith('..') ? [] : filesUnder(path.dirname(workflowsPath))),
    ...modules.filter((m) => !m.includes(`${path.sep}node_modules${path.sep}`)),
    path.join(REPO_ROOT, 'package-lock.json'),
  ];
  for (const file of [...new Set(files)]) hash.update(path.relative(REPO_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 32);
}

/**
 * The workflows' bundle: read from the cache when one of this key is there, else bundled and written there
 * (atomically, so processes starting side by side never read half a file).
 */
export async function cachedWorkflowBundle(options: WorkflowBundleOptions = {}): Promise<WorkflowBundle> {
  const file = path.join(CACHE_DIR, `${workflowBundleKey(options)}.js`);
  try {
    return { code: readFileSync(file, 'utf8') };
  } catch {
    // Not cached yet: bundle below.
  }
  const { code } = await bundleWorkflowCode({
    workflowsPath: options.workflowsPath ?? require.resolve('../workflows'),
    logger: new DefaultLogger('WARN'),
    ...(options.workflowInterceptorModules ? { workflowInterceptorModules: options.workflowInterceptorModules } : {}),
    ...(options.failureConverterPath ? { failureConverterPath: options.failureConverterPath } : {}),
  });
  mkdirSync(CACHE_DIR, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
  pruneOldBundles();
  return { code };
}

/** Keeps the newest KEEP bundles: each edit of the workflow code makes a new one (3.5 MB). */
const KEEP = 8;
function pruneOldBundles(): void {
  const bundles = readdirSync(CACHE_DIR)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ file: path.join(CACHE_DIR, name), mtime: statSync(path.join(CACHE_DIR, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { file } of bundles.slice(KEEP)) rmSync(file, { force: true });
}
