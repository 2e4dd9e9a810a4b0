import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { RagError } from '../../core/errors';
import type { IngestBatchResult, IngestProgress } from '../../core/ingest/ingest-io';
import type { ingestWorkflow } from '../../workflows/ingest-workflow';
import { ingestProgressQuery } from '../../workflows/messages';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';

/** Extensions the loaders read (activities/adapters/loaders). Other files in a directory are left out. */
const SUPPORTED = new Set(['.md', '.markdown', '.txt', '.html', '.htm', '.pdf', '.docx']);

/** Files named directly are kept whatever their type (so an unsupported one is reported); directories are walked. */
export function expandInputs(inputs: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (SUPPORTED.has(path.extname(entry.name).toLowerCase())) files.push(full);
    }
  };
  for (const input of inputs) {
    const absolute = path.resolve(input);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(absolute).isDirectory();
    } catch {
      throw new RagError('INVALID_INPUT', `${input}: no such file or directory`);
    }
    if (isDirectory) walk(absolute);
    else files.push(absolute);
  }
  return [...new Set(files)];
}

function renderSummary(result: IngestBatchResult): string {
  const lines = result.files.map((file) =>
    file.status === 'ingested'
      ? `  ok      ${file.filename}  L1 ${file.l1}  L2 ${file.l2}  L3 ${file.l3}  ${file.duration_ms} ms`
      : `  FAILED  ${file.filename}  ${file.error?.type}: ${file.error?.message}`,
  );
  const t = result.totals;
  lines.push(`${t.ingested}/${t.files} file(s) ingested, ${t.failed} failed; chunks L1 ${t.l1}, L2 ${t.l2}, L3 ${t.l3}; ${t.duration_ms} ms`);
  const flush = result.flush;
  if (flush?.status === 'flushed') lines.push(`leaves flushed (sealed for fast search) in ${flush.duration_ms} ms`);
  if (flush?.status === 'failed') lines.push(`WARNING  flushing the leaves failed (${flush.error?.type}: ${flush.error?.message}); they are searchable, only slower, until the next batch flushes`);
  return lines.join('\n');
}

export function registerIngest(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('ingest')
    .description('ingest files and directories (.md .txt .html .pdf .docx) into the knowledge store, as a durable workflow')
    .argument('<paths...>')
    .option('--json', 'print the per-file results as JSON')
    .action(async (inputs: string[], flags: { json?: boolean }) => {
      const files = expandInputs(inputs);
      if (files.length === 0) throw new RagError('INVALID_INPUT', 'no supported files found (.md .txt .html .pdf .docx)');
      const rag = await context.clientWithWorker();
      const handle = await rag.temporal.workflow.start<typeof ingestWorkflow>('ingestWorkflow', {
        workflowId: `ingest-${randomUUID().slice(0, 8)}`,
        taskQueue: context.config.temporal.taskQueue,
        args: [{ files }],
        staticSummary: `ingest ${files.length} file(s)`,
      });
      const bar = !flags.json && process.stderr.isTTY ? new SingleBar({ format: 'ingest [{bar}] {value}/{total} files {running}' }, Presets.shades_classic) : null;
      bar?.start(files.length, 0, { running: '' });
      const poll = setInterval(() => {
        handle.query(ingestProgressQuery).then(
          (progress: IngestProgress) =>
            bar?.update(progress.done, { running: progress.flush?.status === 'running' ? 'flushing leaves' : progress.running.map((file) => path.basename(file)).join(', ') }),
          () => undefined,
        );
      }, 300);
      let result: IngestBatchResult;
      try {
        result = await handle.result();
      } finally {
        clearInterval(poll);
        bar?.stop();
      }
      console.log(flags.json ? JSON.stringify(result, null, 2) : renderSummary(result));
      setExit(result.totals.failed > 0 ? EXIT.failed : EXIT.ok);
    });
}
