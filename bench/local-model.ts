import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { EvalReport } from '../core/eval/report';
import { LOCAL_MODEL } from '../core/local-model';
import { RAGTIME_BIN, startWorkerProcess, stopWorkerProcess } from '../test/support/worker-process';
import { REPO_ROOT } from './knowledge/common';

/*
 * The local model beside the offline rules (issue 43 §3, §7): open-set questions asked through a worker with
 * MODEL_PROVIDER=local (MODEL_STEPS' local defaults: the grade by probability, the answer by the model), then the
 * same questions through an offline worker, each on a task queue of its own, one question in flight (`ragtime eval
 * --concurrency 1`), in the same session so their ratio is comparable on a shared machine. Prints route accuracy,
 * unanswerable answered and p50/p95 per question of each, from the eval reports.
 *
 *   npx tsx bench/local-model.ts --set .data/golden/cli-pages-heldout --kb a42_cli_pages [--limit 12] [--llm-port 8766]
 *     [--providers local,offline] [--out .data/eval/local-model]
 */

type Row = { provider: string; describe: string; set: string; n: number; accuracy: number; unanswerableAnswered: string; answerableAnswered: string; p50: number; p95: number; verified: number; answered: number };

function runEval(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RAGTIME_BIN, 'eval', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

function rowOf(provider: string, report: EvalReport): Row {
  const { summary, questions } = report;
  const unanswerable = questions.filter((q) => !q.answerable);
  const answerable = questions.filter((q) => q.answerable);
  const answered = (q: (typeof questions)[number]) => q.route === 'answer';
  return {
    provider,
    describe: report.provider,
    set: report.set,
    n: summary.n,
    accuracy: summary.routes.accuracy,
    unanswerableAnswered: `${unanswerable.filter(answered).length}/${unanswerable.length}`,
    answerableAnswered: `${answerable.filter(answered).length}/${answerable.length}`,
    p50: summary.latency_ms.p50,
    p95: summary.latency_ms.p95,
    verified: summary.answers.verified ?? 0,
    answered: summary.answers.answered,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      set: { type: 'string' }, kb: { type: 'string' }, limit: { type: 'string', default: '12' }, 'llm-port': { type: 'string', default: String(LOCAL_MODEL.port) },
      providers: { type: 'string', default: 'local,offline' }, out: { type: 'string', default: path.join(REPO_ROOT, '.data/eval/local-model') },
    },
    strict: true,
  });
  if (!values.set || !values.kb) throw new Error('usage: local-model.ts --set .data/golden/<set> --kb <kb> [--limit 12]');
  const setName = path.basename(values.set);
  const rows: Row[] = [];
  for (const provider of values.providers.split(',')) {
    const queue = `bench-${provider}-${process.pid}`;
    // The client's MODEL_PROVIDER too: it decides SPECULATION (off with the local model, docs/design/local-model.md).
    const env = { ...process.env, MODEL_PROVIDER: provider, LLM_PORT: values['llm-port'], TEMPORAL_TASK_QUEUE: queue, RAGTIME_HOUSEKEEPING: 'false', RAGTIME_KB: values.kb };
    const worker = await startWorkerProcess(env);
    const out = path.join(values.out, provider, setName);
    try {
      const code = await runEval([values.set, '--kb', values.kb, '--concurrency', '1', '--limit', values.limit, '--out', out], env);
      if (code !== 0) console.error(`ragtime eval exited ${code} for ${provider}`);
    } finally {
      await stopWorkerProcess(worker.child);
    }
    rows.push(rowOf(provider, JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as EvalReport));
  }
  for (const row of rows) console.log(`${row.provider}: ${row.describe}`);
  console.log('\n| set | provider | questions | route accuracy | answerable answered | unanswerable answered | answers verified | p50 | p95 |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(`| ${row.set} | ${row.provider} | ${row.n} | ${(100 * row.accuracy).toFixed(1)} % | ${row.answerableAnswered} | ${row.unanswerableAnswered} | ${Math.round(row.verified * row.answered)}/${row.answered} | ${(row.p50 / 1000).toFixed(1)} s | ${(row.p95 / 1000).toFixed(1)} s |`);
  }
  const [local, offline] = [rows.find((row) => row.provider.startsWith('local')), rows.find((row) => row.provider.startsWith('offline'))];
  if (local && offline) console.log(`\nlocal / offline, same session: p50 ×${(local.p50 / Math.max(1, offline.p50)).toFixed(1)}, p95 ×${(local.p95 / Math.max(1, offline.p95)).toFixed(1)}`);
}

if (require.main === module) main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
