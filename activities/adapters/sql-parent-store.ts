import { RagError } from '../../core/errors';
import { DocumentMeta } from '../../core/knowledge/document-meta';
import type { DocumentRecord } from '../../core/knowledge/knowledge-base';
import type { DocumentRegistry, HierarchyChunk, LegacyDocuments, ParentStore } from '../ports';
import { lazyMigratedStore, openSqlDatabase, type SqlBackend, type SqlLocation } from './sql/database';
import { LEGACY_KB, migrateParentChunks, type ParentChunksDatabase } from './sql/parent-chunks-schema';

/*
 * The parent-chunk store of spec §6.8 and the document registry on SQL: a SQLite file by default, PostgreSQL when a
 * database URL is set. Both are keyed by knowledge base (DESIGN §4b): `forKb(kb)` sees that knowledge base's rows
 * only. SuperMew's Redis read-through cache is left out: a lookup by primary key is one indexed query per retrieval,
 * fast enough on either backend, and a cache would have to be invalidated on every re-ingestion.
 */

// Rows per INSERT and ids per IN list: far below SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const INSERT_BATCH = 500;
const LOOKUP_BATCH = 500;

const COLUMNS = [
  'chunk_id',
  'text',
  'filename',
  'file_type',
  'file_path',
  'page_number',
  'parent_chunk_id',
  'root_chunk_id',
  'chunk_level',
  'chunk_idx',
] as const;

const DOCUMENT_COLUMNS = ['kb', 'doc_id', 'filename', 'source', 'file_type', 'pages', 'l1', 'l2', 'l3', 'bytes', 'content_hash', 'ingested_at', 'meta'] as const;

const STORE = 'parent store';

export type SqlParentStore = {
  readonly backend: SqlBackend;
  /** The parent chunks of one knowledge base. */
  forKb(kb: string): ParentStore;
  /** The document registry of every knowledge base, in the same database. */
  readonly documents: DocumentRegistry;
  /** Documents written before knowledge bases existed, waiting for the knowledge base that holds their leaves. */
  readonly legacy: LegacyDocuments;
  /** Runs the migrations (also run lazily by the first operation); resolves to the names applied now. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
};

export type ParentStoreOptions = SqlLocation;

function toChunk(row: Record<(typeof COLUMNS)[number], unknown>): HierarchyChunk {
  return {
    chunk_id: String(row.chunk_id),
    text: String(row.text ?? ''),
    filename: String(row.filename ?? ''),
    file_type: String(row.file_type ?? ''),
    file_path: String(row.file_path ?? ''),
    page_number: Number(row.page_number ?? 0),
    parent_chunk_id: String(row.parent_chunk_id ?? ''),
    root_chunk_id: String(row.root_chunk_id ?? ''),
    chunk_level: Number(row.chunk_level ?? 0),
    chunk_idx: Number(row.chunk_idx ?? 0),
  };
}

/** The stored metadata (issue 44 §1); none for a document registered before it, or a value that does not parse. */
function metaOf(value: unknown): { meta?: DocumentMeta } {
  if (typeof value !== 'string' || value === '') return {};
  try {
    const parsed = DocumentMeta.safeParse(JSON.parse(value));
    return parsed.success ? { meta: parsed.data } : {};
  } catch {
    return {};
  }
}

function toRecord(row: Record<(typeof DOCUMENT_COLUMNS)[number], unknown>): DocumentRecord {
  const int = (value: unknown) => Number(value ?? 0); // PostgreSQL integers may come back as strings
  return {
    kb: String(row.kb),
    doc_id: String(row.doc_id),
    filename: String(row.filename ?? ''),
    source: String(row.source ?? ''),
    file_type: String(row.file_type ?? ''),
    pages: int(row.pages),
    l1: int(row.l1),
    l2: int(row.l2),
    l3: int(row.l3),
    bytes: int(row.bytes),
    content_hash: String(row.content_hash ?? ''),
    ingested_at: String(row.ingested_at ?? ''),
    ...metaOf(row.meta),
  };
}

function checkChunks(docId: string, chunks: HierarchyChunk[]): void {
  const seen = new Set<string>();
  for (const chunk of chunks) {
    if (chunk.file_path !== docId) {
      throw new RagError(
        'INVALID_INPUT',
        `parent chunk ${JSON.stringify(chunk.chunk_id)} belongs to document ${JSON.stringify(chunk.file_path)}, not ` +
          `${JSON.stringify(docId)}: replaceDocument takes the chunks of one document only`,
      );
    }
    if (seen.has(chunk.chunk_id)) {
      throw new RagError('INVALID_INPUT', `parent chunk id ${JSON.stringify(chunk.chunk_id)} appears twice; chunk ids must be unique`);
    }
    seen.add(chunk.chunk_id);
  }
}

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Opens the parent-chunk store and the document registry. Nothing touches the database until the first operation
 * (or `migrate()`), so a worker starts while the database is down and retrieval reports the failure instead
 * (spec §6.1 step 4).
 */
export function createParentStore(options: ParentStoreOptions): SqlParentStore {
  const { db, backend, where } = openSqlDatabase<ParentChunksDatabase>(options);
  const { migrate, ready } = lazyMigratedStore(STORE, where, () => migrateParentChunks(db));

  const forKb = (kb: string): ParentStore => ({
    replaceDocument: async (docId, chunks) => {
      checkChunks(docId, chunks);
      return ready('replaceDocument', () =>
        db.transaction().execute(async (trx) => {
          await trx.deleteFrom('parent_chunks').where('kb', '=', kb).where('file_path', '=', docId).execute();
          for (const batch of batches(chunks, INSERT_BATCH)) {
            await trx
              .insertInto('parent_chunks')
              .values(batch.map((c) => ({ kb, ...(Object.fromEntries(COLUMNS.map((k) => [k, c[k]])) as HierarchyChunk) })))
              .execute();
          }
        }),
      );
    },

    deleteDocument: (docId) =>
      ready('deleteDocument', async () => {
        await db.deleteFrom('parent_chunks').where('kb', '=', kb).where('file_path', '=', docId).execute();
      }),

    getByIds: async (ids) => {
      if (ids.length === 0) return [];
      const found = await ready('getByIds', async () => {
        const rows = new Map<string, HierarchyChunk>();
        for (const batch of batches([...new Set(ids)], LOOKUP_BATCH)) {
          const page = await db.selectFrom('parent_chunks').select(COLUMNS).where('kb', '=', kb).where('chunk_id', 'in', batch).execute();
          for (const row of page) rows.set(row.chunk_id, toChunk(row));
        }
        return rows;
      });
      // spec §6.8: in the order of the requested ids, missing ids skipped.
      return ids.flatMap((id) => {
        const chunk = found.get(id);
        return chunk === undefined ? [] : [{ ...chunk }];
      });
    },

    countByDocument: (docId) =>
      ready('countByDocument', async () => {
        const row = await db
          .selectFrom('parent_chunks')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('kb', '=', kb)
          .where('file_path', '=', docId)
          .executeTakeFirstOrThrow();
        return Number(row.n); // PostgreSQL's count is a bigint, which pg returns as a string
      }),
  });

  const documents: DocumentRegistry = {
    get: (kb, docId) =>
      ready('documents.get', async () => {
        const row = await db.selectFrom('documents').select(DOCUMENT_COLUMNS).where('kb', '=', kb).where('doc_id', '=', docId).executeTakeFirst();
        return row ? toRecord(row) : null;
      }),
    findBySource: (kb, source) =>
      ready('documents.findBySource', async () =>
        (await db.selectFrom('documents').select(DOCUMENT_COLUMNS).where('kb', '=', kb).where('source', '=', source).orderBy('doc_id').execute()).map(toRecord),
      ),
    put: (record) =>
      ready('documents.put', () =>
        db.transaction().execute(async (trx) => {
          await trx.deleteFrom('documents').where('kb', '=', record.kb).where('doc_id', '=', record.doc_id).execute();
          const { meta, ...columns } = record;
          await trx.insertInto('documents').values({ ...columns, meta: meta === undefined ? null : JSON.stringify(meta) }).execute();
        }),
      ),
    remove: (kb, docId) =>
      ready('documents.remove', async () => {
        await db.deleteFrom('documents').where('kb', '=', kb).where('doc_id', '=', docId).execute();
      }),
    list: (kb) =>
      ready('documents.list', async () =>
        (await db.selectFrom('documents').select(DOCUMENT_COLUMNS).where('kb', '=', kb).orderBy('doc_id').execute()).map(toRecord),
      ),
    knowledgeBases: () =>
      ready('documents.knowledgeBases', async () => {
        const [fromDocuments, fromParents] = await Promise.all([
          db.selectFrom('documents').select('kb').distinct().execute(),
          db.selectFrom('parent_chunks').select('kb').distinct().execute(),
        ]);
        return [...new Set([...fromDocuments, ...fromParents].map((row) => String(row.kb)))].filter((kb) => kb !== LEGACY_KB).sort();
      }),
    dropKb: (kb) =>
      ready('documents.dropKb', () =>
        db.transaction().execute(async (trx) => {
          await trx.deleteFrom('parent_chunks').where('kb', '=', kb).execute();
          await trx.deleteFrom('documents').where('kb', '=', kb).execute();
        }),
      ),
  };

  const legacy: LegacyDocuments = {
    pending: () =>
      ready('legacy.pending', async () =>
        (await db.selectFrom('parent_chunks').select('file_path').distinct().where('kb', '=', LEGACY_KB).execute()).map((row) => String(row.file_path)).sort(),
      ),
    adopt: (kb, docIds) =>
      ready('legacy.adopt', async () => {
        if (docIds.length === 0) return;
        await db.transaction().execute(async (trx) => {
          for (const batch of batches(docIds, LOOKUP_BATCH)) {
            await trx.updateTable('parent_chunks').set({ kb }).where('kb', '=', LEGACY_KB).where('file_path', 'in', batch).execute();
            await trx.updateTable('documents').set({ kb }).where('kb', '=', LEGACY_KB).where('doc_id', 'in', batch).execute();
          }
        });
      }),
  };

  return { backend, migrate, forKb, documents, legacy, close: () => db.destroy() };
}
