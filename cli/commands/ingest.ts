import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { RagError } from '../../core/errors';
import type { IngestBatchResult, IngestProgress } from '../../core/ingest/ingest-io';
import type { ingestWorkflow } from '../../workflows/ingest-workflow';
import { ingestProgressQuery } from '../../workflows/messages';
import { RAG_KB } from '../../workflows/search-attributes';
import type { CliContext } from '../context';
import { documentInputs } from '../document-ids';
import { EXIT } from '../exit-codes';
import { renderIngestSummary } from '../render/ingest';

export function registerIngest(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('ingest')
    .description('ingest files and directories (.md .txt .html .pdf .docx) into the knowledge store, as a durable workflow')
    .argument('<paths...>')
    .option('--kb <name>', "knowledge base (default RAGTIME_KB, else MILVUS_COLLECTION, else the worker's)")
    .option('--id <id>', 'document id of the one file given (default: its path, relative to here when under it)')
    .option('--prefix <prefix>', "document ids of a folder's files: <prefix><path inside the folder>")
    .option('--replace', 'replace a document whose id another file holds (otherwise that file fails with DOCUMENT_EXISTS)')
    .option('--json', 'print the per-file results as JSON')
    .action(async (inputs: string[], flags: { kb?: string; id?: string; prefix?: string; replace?: boolean; json?: boolean }) => {
      const documents = documentInputs(inputs, { id: flags.id, prefix: flags.prefix, cwd: process.cwd() });
      if (documents.length === 0) throw new RagError('INVALID_INPUT', 'no supported files found (.md .txt .html .pdf .docx)');
      const kb = context.runKbOf(flags.kb);
      const files = documents.map((document) => document.file);
      const rag = await context.clientWithWorker();
      const handle = await rag.temporal.workflow.start<typeof ingestWorkflow>('ingestWorkflow', {
        workflowId: `ingest-${randomUUID().slice(0, 8)}`,
        taskQueue: context.config.temporal.taskQueue,
        args: [{ files, ids: documents.map((document) => document.id), ...(kb === undefined ? {} : { kb }), ...(flags.replace ? { replace: true } : {}) }],
        staticSummary: `ingest ${files.length} file(s)${kb === undefined ? '' : ` into ${kb}`}`,
        ...(kb === undefined ? {} : { memo: { kb }, typedSearchAttributes: [{ key: RAG_KB, value: kb }] }),
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
      console.log(flags.json ? JSON.stringify({ workflowId: handle.workflowId, ...result }, null, 2) : `${renderIngestSummary(result)}\nbatch ${handle.workflowId} (ragtime trace ${handle.workflowId})`);
      setExit(result.totals.failed > 0 ? EXIT.failed : EXIT.ok);
    });
}
