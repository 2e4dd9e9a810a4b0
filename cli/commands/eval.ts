import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { RagError } from '../../core/errors';
import { REPORT_SCHEMA, type EvalReport } from '../../core/eval/report';
import type { CliContext } from '../context';
import { readGoldenSet, runEval } from '../eval/run-eval';
import { EXIT } from '../exit-codes';

const pct = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);

function readReport(file: string): EvalReport {
  if (!existsSync(file)) throw new RagError('INVALID_INPUT', `--compare ${file}: no such file`);
  const report = JSON.parse(readFileSync(file, 'utf8')) as EvalReport;
  if (report.schema !== REPORT_SCHEMA) throw new RagError('INVALID_INPUT', `--compare ${file} is not a ragtime eval report (schema ${String(report.schema)}, expected ${REPORT_SCHEMA})`);
  return report;
}

/** `ragtime eval <set>` (docs/EVALUATION.md): a golden set through the real workflows; report.json, .md, .html. */
export function registerEval(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('eval')
    .description('evaluate a golden set (docs/ + questions.jsonl) through the real workflows: retrieval, routes, answers, where each miss was lost')
    .argument('<set>', 'the golden set folder')
    .option('--kb <name>', 'knowledge base to ingest into and ask (default eval_<set name>)')
    .option('--concurrency <n>', 'questions in flight', '4')
    .option('--out <dir>', 'where report.json, report.md and report.html go (default .data/eval/<set name>)')
    .option('--limit <n>', 'only the first N questions')
    .option('--compare <report.json>', 'compare with an earlier report: list regressions and improvements')
    .option('--max-regressions <n>', 'with --compare: exit 1 when more questions regress than this', '0')
    .option('--json', 'print the summary as JSON')
    .action(async (dir: string, flags: { kb?: string; concurrency: string; out?: string; limit?: string; compare?: string; maxRegressions: string; json?: boolean }) => {
      const set = readGoldenSet(dir);
      const kb = context.kbOf(flags.kb ?? `eval_${set.name.replace(/[^A-Za-z0-9_]/g, '_')}`);
      const concurrency = Number(flags.concurrency);
      const limit = flags.limit === undefined ? undefined : Number(flags.limit);
      const maxRegressions = Number(flags.maxRegressions);
      for (const [name, value] of [['--concurrency', concurrency], ['--limit', limit ?? 1], ['--max-regressions', maxRegressions + 1]] as const) {
        if (!Number.isInteger(value) || value < 1) throw new RagError('INVALID_INPUT', `${name} ${String(value)} is not a positive integer`);
      }
      const previous = flags.compare === undefined ? undefined : readReport(flags.compare);
      const rag = await context.clientWithWorker();
      const admin = context.host.openKnowledge(context.config);
      try {
        const out = path.resolve(flags.out ?? path.join(context.config.database.dataDir, 'eval', set.name));
        const log = (line: string) => console.error(line);
        const uiRun = (id: string) => `${context.uiBaseUrl}/namespaces/${context.config.temporal.namespace}/workflows/${encodeURIComponent(id)}`;
        const run = await runEval(rag, admin, set, { set: set.name, kb, concurrency, out, taskQueue: context.config.temporal.taskQueue, ...(limit ? { limit } : {}), runUrl: uiRun, log }, previous);
        const s = run.report.summary;
        if (flags.json) console.log(JSON.stringify({ summary: s, files: run.files, comparison: run.comparison ?? null }, null, 2));
        else {
          console.log(
            [
              `${set.name}: ${s.n} questions in ${kb} (${run.ingested} document(s) ingested, ${run.reused} reused)`,
              `  routes   accuracy ${pct(s.routes.accuracy)}; answerable → answer ${pct(s.routes.answerable_answered)}; unanswerable → not answered ${pct(s.routes.unanswerable_not_answered)}; scope_select ${pct(s.routes.scope_select)}`,
              `  recall   final hit@1 ${pct(s.retrieval.final.hit1)}, hit@5 ${pct(s.retrieval.final.hit5)} (dense ${pct(s.retrieval.dense.hit5)}, BM25 ${pct(s.retrieval.bm25.hit5)}, fused ${pct(s.retrieval.fused.hit5)} at 5)`,
              `  answers  ${s.answers.answered} answered; gold span ${pct(s.answers.contains_gold)}; verified ${pct(s.answers.verified)}; ${s.model_calls.mean.toFixed(2)} model calls a question; p50 ${s.latency_ms.p50} ms, p95 ${s.latency_ms.p95} ms`,
              ...(s.follow_ups
                ? [`  follow-ups ${s.follow_ups.n}: ${pct(s.follow_ups.rewritten)} rewritten from the session; final hit@5 ${pct(s.follow_ups.hit5_with)} with the turns, ${pct(s.follow_ups.hit5_without)} asked alone`]
                : []),
              `  lost at  ${Object.entries(s.attribution).filter(([, n]) => n > 0).map(([layer, n]) => `${layer} ${n}`).join(', ') || 'nothing'}`,
              `  report   ${run.files.html} (also report.md, report.json)`,
            ].join('\n'),
          );
        }
        if (run.comparison) {
          const { regressions, improvements } = run.comparison;
          if (!flags.json) {
            console.log(`  compared with ${flags.compare}: ${regressions.length} regression(s), ${improvements.length} improvement(s)`);
            for (const r of regressions.slice(0, 20)) console.log(`    regression ${r.id}: ${r.before ?? '-'} → ${r.after ?? '-'} (${r.layer ?? '-'})`);
          }
          if (regressions.length > maxRegressions) setExit(EXIT.failed);
        }
      } finally {
        await admin.close();
      }
    });
}
