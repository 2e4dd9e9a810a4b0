import type { Command } from 'commander';
import { RagError, describeZodError } from '../../core/errors';
import { HitlAnswer, RunStatus } from '../../core/schemas/run-io';
import type { CliContext } from '../context';
import { exitCodeOf, renderOutcome } from '../render/outcome';
import { renderAnswerRecord } from '../render/answer';
import { renderModelCalls } from '../render/model-calls';
import { renderRunRows } from '../render/run-rows';
import { renderTraceTree } from '../render/trace-tree';
import { renderIngestBatch, renderSubQuestion } from '../render/workflow-views';
import { toRagError } from '../../client/errors';
import { printTraceDiff } from './trace-diff';

export function registerRunCommands(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('answer')
    .description("send a person's answer to a waiting run and print its next outcome")
    .argument('<workflowId>')
    .argument('<text>', 'the answer (1–2,000 characters)')
    .option('--kb <name>', 'refuse unless the run reads this knowledge base')
    .option('--json', 'print the outcome as JSON')
    .action(async (workflowId: string, text: string, flags: { kb?: string; json?: boolean }) => {
      const answer = HitlAnswer.safeParse(text);
      if (!answer.success) throw new RagError('INVALID_INPUT', describeZodError('invalid answer', answer.error));
      const rag = await context.clientWithWorker();
      if (flags.kb !== undefined) {
        const expected = context.kbOf(flags.kb);
        const reads = (await rag.getOutcome(workflowId)).kb ?? "the worker's default";
        if (reads !== expected) throw new RagError('INVALID_INPUT', `run "${workflowId}" reads knowledge base "${reads}", not "${expected}"; nothing was sent`);
      }
      const outcome = await rag.answer(workflowId, text);
      console.log(flags.json ? JSON.stringify(outcome, null, 2) : renderOutcome(outcome, context.uiBaseUrl));
      setExit(exitCodeOf(outcome));
    });

  program
    .command('trace')
    .description('show a run (route path, grades, retrieval meta, rounds), a sub-question (<run>/sub-<n>) or an ingest batch; --diff A B compares two runs')
    .argument('<workflowId>')
    .argument('[otherWorkflowId]', 'with --diff: the run to compare the first with')
    .option('--diff', 'compare two runs: route, grades, evidence in and out, rank moves per leg, timings')
    .option('--json', 'print the outcome (with its normalized trace) as JSON; with --diff, the comparison')
    .action(async (workflowId: string, other: string | undefined, flags: { json?: boolean; diff?: boolean }) => {
      if (flags.diff) return printTraceDiff(context, workflowId, other, flags.json === true);
      if (other !== undefined) throw new RagError('INVALID_INPUT', `trace takes one run; to compare "${workflowId}" with "${other}", add --diff`);
      const rag = await context.client();
      // Every workflow ragtime starts has a view: runs, their sub-question children, ingest batches.
      const handle = rag.temporal.workflow.getHandle(workflowId);
      const description = await handle.describe().catch((error: unknown) => {
        throw toRagError(error, workflowId);
      });
      const state = { status: description.status.name, type: description.type, handle };
      if (state.type === 'subQuestionWorkflow' || state.type === 'ingestWorkflow') {
        const view = await (state.type === 'subQuestionWorkflow' ? renderSubQuestion(state) : renderIngestBatch(state));
        console.log(flags.json ? JSON.stringify(view.json, null, 2) : view.text);
        return;
      }
      if (state.type !== 'ragWorkflow') throw new RagError('INVALID_INPUT', `workflow "${workflowId}" is a ${state.type}, which ragtime did not start`);
      const outcome = await rag.getOutcome(workflowId);
      if (flags.json) {
        console.log(JSON.stringify(outcome, null, 2));
        return;
      }
      console.log(renderOutcome(outcome, context.uiBaseUrl));
      console.log(renderTraceTree(outcome.rag_trace));
      console.log(renderAnswerRecord(outcome).map((line) => `  ${line}`).join('\n'));
      outcome.rounds.forEach((round) =>
        console.log(`  round ${round.round}: ${round.route} "${round.prompt}" → ${round.outcome}${round.answer ? ` "${round.answer}" (${round.answered_via})` : ''}`),
      );
      // How the models were asked (issue 24), from the model activities' results in the history.
      const calls = renderModelCalls((await rag.getRunRecord(workflowId)).modelCalls);
      if (calls.length > 0) console.log(calls.map((line) => `  ${line}`).join('\n'));
    });

  program
    .command('runs')
    .description('list recent runs from Temporal visibility')
    .option('--session <id>', 'only this session')
    .option('--status <status>', 'running | awaiting_input | completed | failed')
    .option('--limit <n>', 'at most this many', '20')
    .option('--json', 'print as JSON')
    .action(async (flags: { session?: string; status?: string; limit: string; json?: boolean }) => {
      // Checked before connecting: a filter that matches nothing by mistake looks like "no runs".
      if (flags.status !== undefined && !RunStatus.safeParse(flags.status).success) {
        throw new RagError('INVALID_INPUT', `--status ${flags.status} is not one of ${RunStatus.options.join(', ')}`);
      }
      const limit = Number(flags.limit);
      if (!/^\d+$/.test(flags.limit) || limit < 1 || limit > 1000) throw new RagError('INVALID_INPUT', `--limit ${flags.limit} is not a whole number from 1 to 1000`);
      const rag = await context.client();
      const rows = await rag.listRuns({ ...(flags.session ? { session: flags.session } : {}), ...(flags.status ? { status: flags.status } : {}), limit });
      if (flags.json) console.log(JSON.stringify(rows, null, 2));
      else if (rows.length === 0) console.log('no runs match');
      else console.log(renderRunRows(rows));
    });
}
