import path from 'node:path';
import vm from 'node:vm';
import { DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import { parseArgs, positiveInt } from './support/args';
import { loadAverage } from './support/machine';
import { table } from './support/stats';

/*
 * What one workflow pays to evaluate the workflow bundle's modules it reaches (issue 47 §1): each --tree's
 * workflows/index.ts bundled as a worker bundles it, then, per round and in a shuffled order, for each tree and
 * workflow type a fresh V8 context (as the worker's reusable context gives every workflow a fresh module cache):
 * the bundle evaluated, its workflows imported and the workflow's export called (it fails at once outside a worker;
 * what is measured is the modules it required). CPU ms of this process around the import and the call.
 *
 *   npx tsx bench/workflow-imports.ts --tree /tmp/before --tree . [--rounds 60] [--types ragWorkflow,subQuestionWorkflow]
 */

type Context = { __TEMPORAL__: { importWorkflows(): Record<string, (...args: unknown[]) => unknown> } };

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { tree: { type: 'string', multiple: true }, rounds: { type: 'string', default: '60' }, types: { type: 'string', default: 'ragWorkflow,subQuestionWorkflow' } },
    strict: true,
  });
  const trees = values.tree ?? ['.'];
  const rounds = positiveInt('rounds', values.rounds);
  const types = values.types.split(',').map((type) => type.trim());
  const loadBefore = loadAverage();
  const scripts = new Map<string, vm.Script>();
  for (const tree of trees) {
    const { code } = await bundleWorkflowCode({ workflowsPath: path.resolve(tree, 'workflows', 'index.ts'), logger: new DefaultLogger('WARN') });
    scripts.set(tree, new vm.Script(code, { filename: `workflow-bundle (${tree})` }));
  }
  const once = (tree: string, type: string): number => {
    const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
    const context = vm.createContext({ console: quiet, TextEncoder, TextDecoder, URL, URLSearchParams, AbortController, __webpack_module_cache__: {} }) as unknown as Context;
    scripts.get(tree)?.runInContext(context);
    const started = cpuMs();
    try {
      const running = context.__TEMPORAL__.importWorkflows()[type]?.() as { catch?: (f: () => void) => void } | undefined;
      // The context's Promise is not this realm's: no instanceof.
      if (typeof running?.catch === 'function') running.catch(() => undefined);
    } catch {
      // Outside a worker the workflow fails at its first call into the SDK: its modules are loaded by then.
    }
    return cpuMs() - started;
  };
  const cells = trees.flatMap((tree) => types.map((type) => ({ tree, type, ms: [] as number[] })));
  for (let round = 0; round < rounds + 3; round += 1) {
    const order = cells.map((cell) => ({ cell, key: Math.random() })).sort((a, b) => a.key - b.key);
    for (const { cell } of order) {
      const ms = once(cell.tree, cell.type);
      if (round >= 3) cell.ms.push(ms);
    }
  }
  const median = (list: number[]) => {
    const sorted = [...list].sort((a, b) => a - b);
    return ((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? 0)) / 2;
  };
  const mean = (list: number[]) => list.reduce((sum, value) => sum + value, 0) / Math.max(1, list.length);
  console.log(`npx tsx bench/workflow-imports.ts ${process.argv.slice(2).join(' ')} — ${rounds} rounds, load ${loadBefore} → ${loadAverage()}\n`);
  console.log(table(['tree', 'workflow', 'CPU ms, median', 'CPU ms, mean (GC included)'], cells.map((cell) => [cell.tree, cell.type, median(cell.ms).toFixed(1), mean(cell.ms).toFixed(1)])));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
