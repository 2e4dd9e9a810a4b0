import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { createAnswerStreamStore } from '../activities/adapters/sql-answer-stream';
import { followAnswer } from '../client/follow-answer';
import { RagClient } from '../client/rag-client';
import { formatDocs } from '../core/graph/format-docs';
import { LOCAL_MODEL } from '../core/local-model';
import { buildAnswerPrompt } from '../core/prompts/answer-prompt';
import type { AnswerStreamMessage } from '../core/schemas/answer-stream';
import { REPO_ROOT } from '../runtime/repo-root';
import { auditSqliteFileOf } from '../runtime/data-files';
import { loadConfig } from '../runtime/load-config';
import { parseArgs, positiveInt, temporalAddress } from './support/args';
import { loadAverage, sourceInfo } from './support/machine';
import { ms, percentile, table } from './support/stats';
import { writeSection } from './support/markdown-section';

/*
 * Streaming answers from a real model (issue 34 §5): time to the first answer text a listener is shown and to the
 * full answer, for questions through a worker with MODEL_PROVIDER=local (the local model service, one call at a time,
 * speculation off), beside the same model streaming the same answer prompt with nothing around it — so the ratio says
 * what the pipeline (planner, grader, a rewrite, the side channel) adds to what the model itself takes to answer.
 *
 *   make llm && npx tsx bench/local-model-streaming.ts [--runs 3] [--write docs/PERFORMANCE.md]
 */

const HELP = `npx tsx bench/local-model-streaming.ts [--runs N] [--write FILE]
  --runs N     rounds over the questions (default 3)
  --write FILE put the table into FILE between the local-model streaming markers (docs/PERFORMANCE.md)`;

const MARK = { begin: '<!-- local-model-streaming:begin (written by bench/local-model-streaming.ts) -->', end: '<!-- local-model-streaming:end -->' };
const HEADING = '## Streaming from the local model (issue 34 §5)';
const QUESTIONS = ['Aurora X2 路由器的保修期是多久？', 'Nimbus C1 摄像头支持多大的存储卡？', 'What is new in Orbit CLI 2.1?'];

type Timing = { firstText: number; full: number };
type Pair = { question: string; ragtime: Timing & { route: string; verified: string }; model: Timing };

const ragtimeCli = (args: string[], env: NodeJS.ProcessEnv) => spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'ragtime.js'), ...args], { cwd: REPO_ROOT, env, encoding: 'utf8' });

function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'ragtime.js'), 'worker'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (/^ragtime worker: task queue/m.test(output)) resolve(child);
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it was ready:\n${output}`)));
  });
}

/**
 * The model alone: the answer prompt of the run's own evidence, streamed straight from the service. A one-token call
 * first, on another prompt, so the service's cache of the prompt it just read for the run does not make this one free.
 */
async function modelAlone(openai: OpenAI, question: string, context: string): Promise<Timing> {
  await openai.chat.completions.create({ model: LOCAL_MODEL.id, temperature: 0, max_tokens: 1, messages: [{ role: 'user', content: 'Say OK.' }] });
  const started = Date.now();
  let first = Number.NaN;
  const stream = await openai.chat.completions.create({ model: LOCAL_MODEL.id, temperature: 0, stream: true, messages: [buildAnswerPrompt(question, context)] });
  for await (const chunk of stream) if (Number.isNaN(first) && chunk.choices[0]?.delta.content) first = Date.now() - started;
  return { firstText: first, full: Date.now() - started };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, write: { type: 'string' }, help: { type: 'boolean', default: false } }, strict: true });
  if (values.help) return console.log(HELP);
  const runs = positiveInt('runs', values.runs);
  const port = Number(process.env.LLM_PORT ?? LOCAL_MODEL.port);
  const command = `npx tsx bench/local-model-streaming.ts ${process.argv.slice(2).join(' ')}`.trimEnd();
  const started = new Date();
  console.log(`# bench/local-model-streaming — ${started.toISOString()}\ncommand: ${command}\nload average at start: ${loadAverage()}`);

  const tag = `${process.pid}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-llm-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MODEL_PROVIDER: 'local',
    LLM_PORT: String(port),
    RAGTIME_DATA_DIR: dataDir,
    RAGTIME_KB: `bench_llm_${tag}`,
    TEMPORAL_TASK_QUEUE: `bench-llm-${tag}`,
    RAGTIME_HOUSEKEEPING: 'false',
  };
  const config = loadConfig(env);
  const worker = await startWorker(env);
  const ingested = ragtimeCli(['ingest', 'samples/knowledge'], env);
  if (ingested.status !== 0) throw new Error(`ingest failed: ${ingested.stderr}`);
  const rag = await RagClient.connect({ address: temporalAddress(), taskQueue: env.TEMPORAL_TASK_QUEUE as string });
  const reader = createAnswerStreamStore({ sqliteFile: auditSqliteFileOf(config) });
  const openai = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'local', timeout: 600_000, maxRetries: 0 });
  const pairs: Pair[] = [];
  try {
    for (let round = 0; round < runs; round += 1) {
      for (const [i, question] of QUESTIONS.entries()) {
        const workflowId = `rag-bench-llm-${tag}-${round}-${i}`;
        const t0 = Date.now();
        let firstText = Number.NaN;
        let settled = Number.NaN;
        const pending = rag.ask(question, { sessionId: `bench-llm-${tag}-${round}-${i}`, workflowId, speculation: 'off' }).then((outcome) => ((settled = Date.now() - t0), outcome));
        const onMessage = (message: AnswerStreamMessage) => {
          if (message.type === 'delta' && Number.isNaN(firstText)) firstText = Date.now() - t0;
        };
        const outcome = await followAnswer(pending, rag, workflowId, reader, onMessage);
        const model = await modelAlone(openai, question, formatDocs(outcome.docs));
        pairs.push({ question, model, ragtime: { firstText, full: settled, route: `${outcome.status}/${outcome.route}`, verified: outcome.answer?.verification.status ?? '-' } });
        console.log(`round ${round + 1}/${runs} ${question}: ragtime first text ${ms(firstText)} ms, full ${ms(settled)} ms (${outcome.status}/${outcome.route}); model alone ${ms(model.firstText)} / ${ms(model.full)} ms; load ${loadAverage()}`);
      }
    }
  } finally {
    await reader.close();
    await rag.close();
    worker.kill('SIGINT');
    await new Promise((resolve) => worker.once('exit', resolve));
    ragtimeCli(['kb', 'drop', env.RAGTIME_KB as string, '--yes'], env);
    rmSync(dataDir, { recursive: true, force: true });
  }

  const p50 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
  const p95 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 95);
  const cell = (values: number[]) => `${ms(p50(values))} / ${ms(p95(values))}`;
  const ratio = (a: number[], b: number[]) => `${(p50(a) / p50(b)).toFixed(2)}×`;
  const rows = [
    ['ragtime (MODEL_PROVIDER=local, speculation off)', cell(pairs.map((p) => p.ragtime.firstText)), cell(pairs.map((p) => p.ragtime.full)), ratio(pairs.map((p) => p.ragtime.firstText), pairs.map((p) => p.model.firstText)), ratio(pairs.map((p) => p.ragtime.full), pairs.map((p) => p.model.full))],
    ['the model alone, the same answer prompt', cell(pairs.map((p) => p.model.firstText)), cell(pairs.map((p) => p.model.full)), '1.00×', '1.00×'],
  ];
  const routes = [...new Set(pairs.map((p) => `${p.ragtime.route} (${p.ragtime.verified})`))].join(', ');
  const markdown = [
    `Measured ${started.toISOString().slice(0, 10)} with \`${command}\` (${sourceInfo()}); ${QUESTIONS.length} questions × ${runs} rounds = ${pairs.length} pairs, each ragtime run followed through the side channel, then the model alone on that run's evidence; load average at the end ${loadAverage()}.`,
    '',
    table(['', 'first answer text shown, p50 / p95 ms', 'full answer, p50 / p95 ms', 'first text vs the model alone (p50)', 'full vs the model alone (p50)'], rows),
    '',
    `Outcomes: ${routes}.`,
  ].join('\n');
  console.log(`\n${markdown}`);
  if (values.write) writeSection(values.write, MARK, markdown, HEADING);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
