import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { RagError } from '../../core/errors';
import { SUPPORTED_EXTENSIONS } from '../../core/ingest/supported-files';
import type { WorkflowHandle } from '@temporalio/client';
import type { IngestBatchResult, IngestProgress } from '../../core/ingest/ingest-io';
import type { ingestWorkflow } from '../../workflows/ingest-workflow';
import { ingestProgressQuery } from '../../workflows/messages';
import { RAG_KB } from '../../workflows/search-attributes';
import type { CliContext } from '../context';
import { documentInputs } from '../document-ids';
import { EXIT } from '../exit-codes';
import { readIngestAttempts, type IngestAttempt } from '../ingest-attempts';
import { renderIngestAttempt, renderIngestSummary } from '../render/ingest';
import { ACL_HELP, collect, META_HELP, metaOfFlags, withAcl } from '../filter-flags';

export function registerIngest(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('ingest')
    .description(`ingest files and directories (${SUPPORTED_EXTENSIONS.join(' ')}) into the knowledge store, as a durable workflow; a file of another type is refused (exit 2)`)
    .argument('<paths...>')
    .option('--kb <name>', "knowledge base (default RAGTIME_KB, else MILVUS_COLLECTION, else the worker's)")
    .option('--id <id>', 'document id of the one file given (default: its path, relative to here when under it)')
    .option('--prefix <prefix>', "document ids of a folder's files: <prefix><path inside the folder>")
    .option('--replace', 'replace a document whose id another file holds (otherwise that file fails with DOCUMENT_EXISTS)')
    .option('--reembed', "embed every leaf again (by default a re-ingested document keeps the vectors of its unchanged leaves)")
    .option('--meta <key=value>', META_HELP, collect)
    .option('--acl <groups>', ACL_HELP)
    .option('--json', 'print the per-file results as JSON')
    .action(async (inputs: string[], flags: { kb?: string; id?: string; prefix?: string; replace?: boolean; reembed?: boolean; meta?: string[]; acl?: string; json?: boolean }) => {
      const meta = withAcl(metaOfFlags(flags.meta), flags.acl); // a bad one exits 2 before anything starts
      const documents = documentInputs(inputs, { id: flags.id, prefix: flags.prefix, cwd: process.cwd() });
      if (documents.length === 0) throw new RagError('INVALID_INPUT', `no supported files found (${SUPPORTED_EXTENSIONS.join(' ')})`);
      const kb = await context.startableKbOf(flags.kb);
      const files = documents.map((document) => document.file);
      const rag = await context.clientWithWorker();
      const handle = await rag.temporal.workflow.start<typeof ingestWorkflow>('ingestWorkflow', {
        workflowId: `ingest-${randomUUID().slice(0, 8)}`,
        taskQueue: context.config.temporal.taskQueue,
        args: [{ files, ids: documents.map((document) => document.id), ...(kb === undefined ? {} : { kb }), ...(flags.replace ? { replace: true } : {}), ...(flags.reembed ? { reembed: true } : {}), ...meta }],
        staticSummary: `ingest ${files.length} file(s)${kb === undefined ? '' : ` into ${kb}`}`,
        ...(kb === undefined ? {} : { memo: { kb }, typedSearchAttributes: [{ key: RAG_KB, value: kb }] }),
      });
      const bar = !flags.json && process.stderr.isTTY ? new SingleBar({ format: 'ingest [{bar}] {value}/{total} files {running}' }, Presets.shades_classic) : null;
      bar?.start(files.length, 0, { running: '' });
      // What each running file waits on (issue 14 §5), from its activity's heartbeat: on the bar, or (no terminal)
      // one stderr line whenever it moves on to something else.
      const changed = lineChanges();
      const watch = flags.json ? null : watchIngest(handle, (progress, attempts) => {
        const running = progress.flush?.status === 'running' ? ['flushing leaves'] : progress.running.map((file) => {
          const attempt = attempts.find((a) => a.file === file);
          return attempt ? `${path.basename(file)}: ${renderIngestAttempt(attempt)}` : path.basename(file);
        });
        if (bar) bar.update(progress.done, { running: running.join('; ') });
        else for (const line of changed(running)) process.stderr.write(`ingest: ${line}\n`);
      });
      let result: IngestBatchResult;
      try {
        result = await handle.result();
      } finally {
        watch?.stop();
        bar?.stop();
      }
      console.log(flags.json ? JSON.stringify({ workflowId: handle.workflowId, ...result }, null, 2) : `${renderIngestSummary(result)}\nbatch ${handle.workflowId} (ragtime trace ${handle.workflowId})`);
      setExit(result.totals.failed > 0 ? EXIT.failed : EXIT.ok);
    });
}

/** How often the batch's progress is read: the query is cheap; the server's describe, once a second, less so. */
const QUERY_EVERY_MS = 300;
const DESCRIBE_EVERY_MS = 1_000;

/** Polls the batch's progress query and its pending activities; `show` gets both. Errors are skipped (next poll). */
function watchIngest(handle: WorkflowHandle, show: (progress: IngestProgress, attempts: IngestAttempt[]) => void): { stop(): void } {
  let attempts: IngestAttempt[] = [];
  let describedAt = 0;
  let busy = false;
  const describe = async (now: number) => {
    if (now - describedAt < DESCRIBE_EVERY_MS) return;
    describedAt = now;
    attempts = await readIngestAttempts(handle).catch(() => attempts);
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    Promise.all([handle.query(ingestProgressQuery), describe(Date.now())])
      .then(([progress]) => show(progress, attempts))
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, QUERY_EVERY_MS);
  return { stop: () => clearInterval(timer) };
}

/** A filter of status lines: those that differ from the last ones of their file, compared without their counters. */
function lineChanges(): (lines: string[]) => string[] {
  const shown = new Map<string, string>();
  return (lines) =>
    lines.filter((line) => {
      const key = line.slice(0, line.indexOf(':') + 1) || line;
      const shape = line.replace(/\d+ s\b/g, '# s');
      if (shown.get(key) === shape) return false;
      shown.set(key, shape);
      return true;
    });
}
