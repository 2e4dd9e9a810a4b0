import type { Command } from 'commander';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { renderDoctor } from '../render/doctor';

/**
 * `ragtime doctor` (issue 24 §3): every configured service and model endpoint, one tiny call each, in this process
 * (the checks come through the host: workers/doctor/). Exit 0 when all pass, 4 when one does not.
 */
export function registerDoctor(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('doctor')
    .description('check every configured service and model endpoint with one tiny call each (exit 4 when one fails)')
    .option('--json', 'print the report as JSON ({ok, checks: [{kind, target, ok, detail, ms, plan?}]})')
    .action(async (flags: { json?: boolean }) => {
      const report = await context.host.runDoctor(context.config);
      console.log(flags.json ? JSON.stringify(report, null, 2) : renderDoctor(report));
      if (!report.ok) setExit(EXIT.unavailable);
    });
}
