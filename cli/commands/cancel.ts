import type { Command } from 'commander';
import { RagError, describeZodError } from '../../core/errors';
import { CancelRunInput } from '../../core/schemas/run-cancellation';
import type { CliContext } from '../context';
import { renderCancellation } from '../render/cancellation';

/** How long `ragtime cancel` waits for the run to close before it reports the request as standing (ms). */
const CLOSE_WAIT_MS = 15_000;

/**
 * `ragtime cancel <workflowId> [--reason TEXT]` (issue 43 §6): cancels a run, its sub-questions and its model calls
 * (client/cancel-run.ts). An unknown run is UNKNOWN_RUN (exit 2); a run that has already ended says so and nothing
 * changes (exit 0). Like `answer` and `trace`, it takes any run of the Temporal namespace: the CLI is the operator's.
 */
export function registerCancel(program: Command, context: CliContext): void {
  program
    .command('cancel')
    .description('cancel a run: its sub-questions and model calls stop, it ends CANCELLED (an ended run is left as it is)')
    .argument('<workflowId>')
    .option('--reason <text>', 'why (up to 500 characters): kept in the run\'s history and shown by ragtime trace')
    .option('--json', 'print what was done as JSON')
    .action(async (workflowId: string, flags: { reason?: string; json?: boolean }) => {
      const input = CancelRunInput.safeParse({ reason: flags.reason });
      if (!input.success) throw new RagError('INVALID_INPUT', describeZodError('invalid --reason', input.error));
      const rag = await context.client();
      const result = await rag.cancelRun(workflowId, { ...input.data, waitMs: CLOSE_WAIT_MS });
      console.log(flags.json ? JSON.stringify(result, null, 2) : renderCancellation(result));
    });
}
