import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { RagError } from '../../core/errors';
import { CHUNKING_VERSION, type ChunkingVersion, PLAIN_CHUNKING } from '../../core/ingest/leaf-context';
import { type DocumentMeta, MetaKey, parseKeyValues } from '../../core/knowledge/document-meta';
import type { DocumentRecord, KbStats } from '../../core/knowledge/knowledge-base';
import type { CliContext } from '../context';
import type { KnowledgeAdmin } from '../host';
import { textTable } from '../render/text-table';

/*
 * `ragtime kb list|create|stats|drop` and `ragtime docs list|rm` (DESIGN §4b): knowledge bases and their documents
 * as named objects, read and changed in this process with the configured Milvus and SQL store (as `search` does).
 */

async function withKnowledge<T>(context: CliContext, run: (admin: KnowledgeAdmin) => Promise<T>): Promise<T> {
  const admin = context.host.openKnowledge(context.config);
  try {
    return await run(admin);
  } finally {
    await admin.close();
  }
}


function statsLines(stats: KbStats): string {
  return [
    `knowledge base ${stats.kb}`,
    `  documents   ${stats.documents}`,
    `  chunks      L1 ${stats.chunks.l1}  L2 ${stats.chunks.l2}  L3 ${stats.chunks.l3}`,
    `  bytes       ${stats.bytes} (UTF-8 text of its chunks)`,
    `  last ingest ${stats.last_ingest ?? '-'}`,
    ...(stats.chunking === undefined ? [] : [`  chunking    ${chunkingLine(stats.chunking)}`]),
    ...(stats.metadata === undefined ? [] : [`  metadata    ${METADATA_LINES[stats.metadata]}`]),
  ].join('\n');
}

/** issue 44: whether the leaves carry metadata, and what filters do on those that do not. */
const METADATA_LINES = {
  all: 'every leaf carries its document\'s metadata (filters apply)',
  some: 'some leaves carry metadata; documents ingested before it match only doc_id filters until ingested again',
  none: 'no leaf carries metadata (ingested before it): filters other than doc_id match nothing until documents are ingested again',
} as const;

/** A document's metadata in one cell: `key=a,b key2=c`. */
function metaCell(record: DocumentRecord): string {
  const entries = Object.entries(record.meta ?? {});
  return entries.length === 0 ? '-' : entries.map(([key, values]) => `${key}=${values.join(',')}`).join(' ');
}

/** issue 42 §1: which leaves the knowledge base has, and for an older one how it gets the new ones. */
function chunkingLine(chunking: ChunkingVersion): string {
  if (chunking !== PLAIN_CHUNKING) return `${chunking} (each leaf is embedded and keyword-indexed with its document's title and headings)`;
  return `${chunking} (created before ${CHUNKING_VERSION}; re-ingestion keeps ${chunking}: drop and create the knowledge base, then ingest, to get ${CHUNKING_VERSION})`;
}

function documentRows(records: DocumentRecord[]): string {
  if (records.length === 0) return '(no documents)';
  return textTable([
    ['id', 'source', 'pages', 'chunks L1/L2/L3', 'ingested at', 'sha256', 'meta'],
    ...records.map((r) => [r.doc_id, r.source || '-', String(r.pages), `${r.l1}/${r.l2}/${r.l3}`, r.ingested_at, r.content_hash ? r.content_hash.slice(0, 12) : '-', metaCell(r)]),
  ]);
}

/** Asks at the terminal; true only for "y" or "yes". */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export function registerKnowledgeBaseCommands(program: Command, context: CliContext): void {
  const kb = program.command('kb').description('knowledge bases: list, create, stats, drop (a Milvus collection plus its parent rows and documents)');
  kb.command('list')
    .description('the knowledge bases of the configured Milvus, with their documents and leaves')
    .option('--json', 'print them as JSON')
    .action(async (flags: { json?: boolean }) =>
      withKnowledge(context, async (admin) => {
        const names = await admin.list();
        // A knowledge base dropped after the listing (another process' `kb drop`) is left out, not an error.
        const listed = await Promise.all(names.map((name) => admin.stats(name).catch((error: unknown) => (error instanceof RagError && error.code === 'UNKNOWN_KB' ? null : Promise.reject(error)))));
        const stats = listed.filter((s) => s !== null);
        if (flags.json) {
          console.log(JSON.stringify(stats.map((s) => ({ ...s, default: s.kb === context.config.milvus.collection })), null, 2));
          return;
        }
        if (stats.length === 0) {
          console.log(`(no knowledge bases; \`ragtime kb create <name>\`, or ingest into the default one, ${context.config.milvus.collection})`);
          return;
        }
        console.log(
          textTable([
            ['knowledge base', 'documents', 'L3 leaves', 'last ingest', 'chunking'],
            ...stats.map((s) => [`${s.kb}${s.kb === context.config.milvus.collection ? ' (default)' : ''}`, String(s.documents), String(s.chunks.l3), s.last_ingest ?? '-', s.chunking ?? '-']),
          ]),
        );
      }),
    );
  kb.command('create')
    .description('create a knowledge base (a no-op when it exists)')
    .argument('<name>', 'letters, digits and _; a letter or _ first')
    .action(async (name: string) =>
      withKnowledge(context, async (admin) => {
        const checked = context.kbOf(name);
        const existed = (await admin.list()).includes(checked);
        await admin.create(checked);
        console.log(existed ? `knowledge base ${checked} exists already; nothing changed` : `created knowledge base ${checked}; ingest into it with \`ragtime ingest --kb ${checked} <files>\``);
      }),
    );
  kb.command('stats')
    .description('documents, chunks per level, characters, last ingest and chunking of a knowledge base')
    .argument('[name]', 'default RAGTIME_KB')
    .option('--json', 'print them as JSON')
    .action(async (name: string | undefined, flags: { json?: boolean }) =>
      withKnowledge(context, async (admin) => {
        const stats = await admin.stats(context.kbOf(name));
        console.log(flags.json ? JSON.stringify(stats, null, 2) : statsLines(stats));
      }),
    );
  kb.command('drop')
    .description('drop a knowledge base: its collection, parent rows and documents (asks on a terminal; --yes otherwise)')
    .argument('<name>')
    .option('--yes', 'do not ask')
    .action(async (name: string, flags: { yes?: boolean }) =>
      withKnowledge(context, async (admin) => {
        const checked = context.kbOf(name);
        const stats = await admin.stats(checked); // UNKNOWN_KB when there is nothing to drop
        if (!flags.yes) {
          if (!process.stdin.isTTY) {
            throw new RagError('INVALID_INPUT', `dropping ${checked} deletes its ${stats.documents} document(s) and ${stats.chunks.l3} leaves; pass --yes to drop it without a terminal to ask on`);
          }
          if (!(await confirm(`drop knowledge base ${checked} with ${stats.documents} document(s) and ${stats.chunks.l3} leaves? [y/N] `))) {
            console.log('nothing dropped');
            return;
          }
        }
        await admin.drop(checked);
        console.log(`dropped knowledge base ${checked} (${stats.documents} document(s), ${stats.chunks.l3} leaves)`);
      }),
    );

  const docs = program.command('docs').description('the documents of a knowledge base: list, rm');
  docs
    .command('list')
    .description('id, source, pages, chunks, ingested at and content hash of every document')
    .option('--kb <name>', 'knowledge base (default RAGTIME_KB)')
    .option('--json', 'print them as JSON')
    .action(async (flags: { kb?: string; json?: boolean }) =>
      withKnowledge(context, async (admin) => {
        const name = context.kbOf(flags.kb);
        await admin.open(name); // UNKNOWN_KB when it does not exist
        const records = await admin.documents.list(name);
        console.log(flags.json ? JSON.stringify(records, null, 2) : documentRows(records));
      }),
    );
  docs
    .command('rm')
    .description('remove a document: its leaves (from retrieval at once), then its parents and its record')
    .argument('<id>', 'the document id (`ragtime docs list` shows them)')
    .option('--kb <name>', 'knowledge base (default RAGTIME_KB)')
    .action(async (id: string, flags: { kb?: string }) =>
      withKnowledge(context, async (admin) => {
        const name = context.kbOf(flags.kb);
        const removed = await admin.removeDocument(name, id);
        console.log(`removed document ${removed.doc_id} from ${name} (${removed.l1 + removed.l2} parents, ${removed.l3} leaves; read from ${removed.source || 'an unknown source'})`);
      }),
    );
  registerDocsMeta(docs, context);
}

/** `ragtime docs meta <id> set key=value… | rm key…` (issue 44 §1): nothing is embedded again. */
function registerDocsMeta(docs: Command, context: CliContext): void {
  docs
    .command('meta')
    .description('change a document\'s metadata without embedding again: set key=value (key=a,b for several), or rm key')
    .argument('<id>', 'the document id (`ragtime docs list` shows them)')
    .argument('<action>', 'set or rm')
    .argument('<items...>', 'set: key=value …; rm: key …')
    .option('--kb <name>', 'knowledge base (default RAGTIME_KB)')
    .action(async (id: string, action: string, items: string[], flags: { kb?: string }) => {
      // Bad input exits 2 before any connection.
      const change = metaChange(action, items);
      await withKnowledge(context, async (admin) => {
        const name = context.kbOf(flags.kb);
        if (!admin.changeDocumentMeta) throw new RagError('INVALID_CONFIG', 'this build cannot change document metadata');
        const record = await admin.changeDocumentMeta(name, id, change);
        console.log(`metadata of ${record.doc_id} in ${name}: ${metaCell(record)} (${record.l3} leaf chunk(s) updated, nothing embedded)`);
      });
    });
}

function metaChange(action: string, items: readonly string[]): (meta: DocumentMeta) => DocumentMeta {
  if (action === 'set') {
    const set = parseKeyValues(items, 'docs meta set');
    return (meta) => ({ ...meta, ...set });
  }
  if (action === 'rm') {
    const keys = items.map((item) => {
      const key = MetaKey.safeParse(item);
      if (!key.success) throw new RagError('INVALID_INPUT', `docs meta rm ${JSON.stringify(item)}: ${key.error.issues[0]?.message ?? 'invalid key'}`);
      return key.data;
    });
    return (meta) => Object.fromEntries(Object.entries(meta).filter(([key]) => !keys.includes(key)));
  }
  throw new RagError('INVALID_INPUT', `docs meta: unknown action ${JSON.stringify(action)}; use set key=value or rm key`);
}
