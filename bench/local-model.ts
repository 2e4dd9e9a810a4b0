import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, type EvalReport } from '../core/eval/report';
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
 *   npx tsx bench/local-model.ts --set .data/golden/news-en-heldout --set .data/golden/news-zh-heldout … --sample 10
 *     (each set's knowledge base a42_<set>; N questions spread evenly over each set)
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

/** Questions spread evenly over the set (not its first N, which a set's file order may bias): i·n/N for i < N. */
function sampleSet(set: string, sample: number, outRoot: string): string {
  const lines = readFileSync(path.join(set, 'questions.jsonl'), 'utf8').split('\n').filter((line) => line.trim() !== '');
  if (sample >= lines.length) return set;
  const dir = path.join(outRoot, 'sets', `${path.basename(set)}-sample${sample}`);
  mkdirSync(dir, { recursive: true });
  // The same documents, byte for byte: `ragtime eval` then reuses the knowledge base the whole set was ingested into.
  if (!existsSync(path.join(dir, 'docs'))) symlinkSync(path.resolve(set, 'docs'), path.join(dir, 'docs'));
  writeFileSync(path.join(dir, 'questions.jsonl'), `${Array.from({ length: sample }, (_, i) => lines[Math.floor((i * lines.length) / sample)]).join('\n')}\n`);
  return dir;
}

/** The knowledge base a set's documents went into (bench/open-sets): a42_<set>, a held-out split sharing its set's. */
const kbOf = (set: string): string => `a42_${path.basename(set).replace(/-heldout$/, '').replace(/-/g, '_')}`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      set: { type: 'string', multiple: true }, kb: { type: 'string' }, limit: { type: 'string', default: '12' }, sample: { type: 'string' }, 'llm-port': { type: 'string', default: String(LOCAL_MODEL.port) },
      providers: { type: 'string', default: 'local,offline' }, out: { type: 'string', default: path.join(REPO_ROOT, '.data/eval/local-model') },
    },
    strict: true,
  });
  if (!values.set?.length) throw new Error('usage: local-model.ts --set .data/golden/<set> [--set …] [--kb <kb>] [--limit 12 | --sample N]');
  if (values.kb && values.set.length > 1) throw new Error('--kb names the knowledge base of one --set; with several, each set\'s is a42_<set>');
  const rows: Row[] = [];
  const latencies = new Map<string, number[]>();
  for (const chosen of values.set) {
    const kb = values.kb ?? kbOf(chosen);
    const set = values.sample ? sampleSet(chosen, Number(values.sample), values.out) : chosen;
    const setName = path.basename(chosen);
    for (const provider of values.providers.split(',')) {
      const queue = `bench-${provider}-${process.pid}`;
      // The client's MODEL_PROVIDER too: it decides SPECULATION (off with the local model, docs/design/local-model.md).
      const env = { ...process.env, MODEL_PROVIDER: provider, LLM_PORT: values['llm-port'], TEMPORAL_TASK_QUEUE: queue, RAGTIME_HOUSEKEEPING: 'false', RAGTIME_KB: kb };
      const worker = await startWorkerProcess(env);
      const out = path.join(values.out, provider, setName);
      try {
        const code = await runEval([set, '--kb', kb, '--concurrency', '1', ...(values.sample ? [] : ['--limit', values.limit]), '--out', out], env);
        if (code !== 0) console.error(`ragtime eval exited ${code} for ${provider}`);
      } finally {
        await stopWorkerProcess(worker.child);
      }
      const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as EvalReport;
      rows.push({ ...rowOf(provider, report), set: setName });
      latencies.set(provider, [...(latencies.get(provider) ?? []), ...report.questions.map((q) => q.latency_ms)]);
    }
  }
  for (const row of rows.filter((row, i) => rows.findIndex((other) => other.provider === row.provider) === i)) console.log(`${row.provider}: ${row.describe}`);
  console.log('\n| set | provider | questions | route accuracy | answerable answered | unanswerable answered | answers verified | p50 | p95 |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(`| ${row.set} | ${row.provider} | ${row.n} | ${(100 * row.accuracy).toFixed(1)} % | ${row.answerableAnswered} | ${row.unanswerableAnswered} | ${Math.round(row.verified * row.answered)}/${row.answered} | ${(row.p50 / 1000).toFixed(1)} s | ${(row.p95 / 1000).toFixed(1)} s |`);
  }
  // Every question of every set together: what a user of the model sees per question.
  for (const [provider, all] of latencies) console.log(`\n${provider}, all ${all.length} questions: p50 ${(percentile(all, 50) / 1000).toFixed(1)} s, p95 ${(percentile(all, 95) / 1000).toFixed(1)} s`);
}

if (require.main === module) main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
