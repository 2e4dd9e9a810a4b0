/*
 * How fast the local model reads a prompt, by tokens a step (issue 43 §3): server/llm/prompt-prefill.ts reads prompts
 * in steps so that a closed request stops within one; this says what a step size costs against one batch. node-llama-cpp
 * directly (no server), the weights of `make llm`, the same text read into a cleared sequence per step size.
 *
 *   npx tsx bench/local-model-prefill.ts [--tokens 1800] [--threads 2] [--steps 16,32,64,128,512]
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';

async function main(): Promise<void> {
  // ESM-only package: imported, as server/llm/local-llm-server.ts does.
  const { getLlama } = await import('node-llama-cpp');
  const { values } = parseArgs({ options: { tokens: { type: 'string', default: '1800' }, threads: { type: 'string', default: '2' }, steps: { type: 'string', default: '16,32,64,128,512' } }, strict: true });
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  const model = await llama.loadModel({ modelPath: path.resolve('.data/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf') });
  const context = await model.createContext({ contextSize: 8192, threads: Number(values.threads), sequences: 1 });
  const sequence = context.getSequence();
  const text = Array.from({ length: 200 }, (_, i) => `Line ${i}: the rsync option --info=progress2 shows overall progress of transfer number ${i * 7}.`).join('\n');
  const tokens = model.tokenize(text).slice(0, Number(values.tokens));
  const steps = [...values.steps.split(',').map(Number), tokens.length];
  let batch = 0;
  const rows: Array<[number, number]> = [];
  for (const step of steps) {
    await sequence.clearHistory();
    const started = performance.now();
    for (let at = 0; at < tokens.length; at += step) await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(at, at + step));
    const perSecond = (tokens.length / (performance.now() - started)) * 1000;
    rows.push([step, perSecond]);
    if (step === tokens.length) batch = perSecond;
  }
  console.log(`| tokens a step | tokens/s | ratio to one batch of ${tokens.length} |\n|---|---|---|`);
  for (const [step, perSecond] of rows) console.log(`| ${step} | ${perSecond.toFixed(1)} | ${(perSecond / batch).toFixed(2)} |`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
