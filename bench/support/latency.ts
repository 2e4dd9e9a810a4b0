import { seededRandom } from '../knowledge/common';

/*
 * The providers' latency model of the benchmarks (issue 17 §1): every model call sleeps `llmMs`, every retrieval
 * `embedMs` (the query embedding) then `searchMs` (Milvus), each stretched by a uniform ± `jitter` fraction — the
 * knobs of the LangGraph.js peer (../shared/peers/langgraph-bench), so both are measured on the same model. The
 * jitter is drawn from a seeded generator, so two runs of the benchmark with one seed sleep the same sequence.
 */

export type LatencyModel = { llmMs: number; embedMs: number; searchMs: number; jitter: number; seed: number };

export const ZERO_LATENCY: LatencyModel = { llmMs: 0, embedMs: 0, searchMs: 0, jitter: 0, seed: 1 };

export const isZeroLatency = (model: LatencyModel): boolean => model.llmMs === 0 && model.embedMs === 0 && model.searchMs === 0;

export type ProviderDelays = { llm(): Promise<void>; retrieval(): Promise<void> };

/** The sleeps of one worker's adapters, drawn from one seeded sequence. */
export function providerDelays(model: LatencyModel): ProviderDelays {
  const random = seededRandom(model.seed);
  const sleep = (ms: number): Promise<void> => {
    if (ms <= 0) return Promise.resolve();
    const stretched = ms * (1 + model.jitter * (2 * random() - 1));
    return new Promise((resolve) => setTimeout(resolve, stretched));
  };
  return {
    llm: () => sleep(model.llmMs),
    retrieval: async () => {
      await sleep(model.embedMs);
      await sleep(model.searchMs);
    },
  };
}

/** `--llm-ms`, `--embed-ms`, `--search-ms`, `--jitter`, `--seed` as the peer reads them (numbers ≥ 0). */
export function latencyFromFlags(values: { 'llm-ms'?: string; 'embed-ms'?: string; 'search-ms'?: string; jitter?: string; seed?: string }): LatencyModel {
  const read = (name: string, text: string | undefined, fallback: number, max = Infinity): number => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0 || value > max) throw new Error(`--${name} must be a number from 0 to ${max}, got ${JSON.stringify(text)}`);
    return value;
  };
  return {
    llmMs: read('llm-ms', values['llm-ms'], 0),
    embedMs: read('embed-ms', values['embed-ms'], 0),
    searchMs: read('search-ms', values['search-ms'], 0),
    jitter: read('jitter', values.jitter, 0, 1),
    seed: read('seed', values.seed, 1),
  };
}

export const LATENCY_FLAGS = {
  'llm-ms': { type: 'string' },
  'embed-ms': { type: 'string' },
  'search-ms': { type: 'string' },
  jitter: { type: 'string' },
  seed: { type: 'string' },
} as const;

export const LATENCY_FLAGS_HELP = `latency model (the peer's knobs; default 0 = orchestration alone):
  --llm-ms N                every model call (planner, grader, rewriter, answer writer) sleeps N ms
  --embed-ms N, --search-ms N
                            every retrieval sleeps embed then search ms
  --jitter F                each sleep × (1 ± F), uniform, from a seeded sequence (default 0)
  --seed N                  the jitter's seed (default 1)`;
