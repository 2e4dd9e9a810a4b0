import { compareRuns } from '../../core/compare/compare-runs';
import { RagError } from '../../core/errors';
import type { CliContext } from '../context';
import { renderRunComparison } from '../render/run-comparison';

/**
 * `ragtime trace --diff A B` (issue 16): reads both runs in detail (outcome and history) and prints what changed
 * from A to B; `--json` prints the RunComparison.
 */
export async function printTraceDiff(context: CliContext, a: string, b: string | undefined, json: boolean): Promise<void> {
  if (b === undefined) throw new RagError('INVALID_INPUT', 'trace --diff needs two runs: ragtime trace --diff <workflowIdA> <workflowIdB>');
  const rag = await context.client();
  const options = context.uiBaseUrl ? { temporalUiBaseUrl: context.uiBaseUrl } : {};
  const [before, after] = await Promise.all([rag.getRunDetail(a, options), rag.getRunDetail(b, options)]);
  const comparison = compareRuns(before, after);
  console.log(json ? JSON.stringify(comparison, null, 2) : renderRunComparison(comparison));
}
