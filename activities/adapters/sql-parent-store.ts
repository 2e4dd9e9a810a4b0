import { RagError } from '../../core/errors';
import type { HierarchyChunk, ParentStore } from '../ports';
import { lazyMigratedStore, openSqlDatabase, type SqlBackend, type SqlLocation } from './sql/database';
import { migrateParentChunks, type ParentChunksDatabase } from './sql/parent-chunks-schema';

/*
 * The parent-chunk store of spec §6.8 on SQL: a SQLite file by default, PostgreSQL when a database URL is set.
 * SuperMew's Redis read-through cache is left out: a lookup by primary key is one indexed query per retrieval,
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

const STORE = 'parent store';

export type SqlParentStore = ParentStore & {
  readonly backend: SqlBackend;
  /** Runs the migrations (also run lazily by the first operation); resolves to the names applied now. */
  migrate(): Promise<string[]>;
};

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

function checkChunks(filename: string, chunks: HierarchyChunk[]): void {
  const seen = new Set<string>();
  for (const chunk of chunks) {
    if (chunk.filename !== filename) {
      throw new RagError(
        'INVALID_INPUT',
        `parent chunk ${JSON.stringify(chunk.chunk_id)} belongs to ${JSON.stringify(chunk.filename)}, not ` +
          `${JSON.stringify(filename)}: replaceFile takes the chunks of one file only`,
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
 * Opens the parent-chunk store. Nothing touches the database until the first operation (or `migrate()`), so a
 * worker starts while the database is down and retrieval reports the failure instead (spec §6.1 step 4).
 */
export function createParentStore(location: SqlLocation): SqlParentStore {
  const { db, backend, where } = openSqlDatabase<ParentChunksDatabase>(location);
  const { migrate, ready } = lazyMigratedStore(STORE, where, () => migrateParentChunks(db));

  return {
    backend,
    migrate,

    replaceFile: async (filename, chunks) => {
      checkChunks(filename, chunks);
      return ready('replaceFile', () =>
        db.transaction().execute(async (trx) => {
          await trx.deleteFrom('parent_chunks').where('filename', '=', filename).execute();
          for (const batch of batches(chunks, INSERT_BATCH)) {
            await trx
              .insertInto('parent_chunks')
              .values(batch.map((c) => Object.fromEntries(COLUMNS.map((k) => [k, c[k]])) as HierarchyChunk))
              .execute();
          }
        }),
      );
    },

    deleteFile: (filename) =>
      ready('deleteFile', async () => {
        await db.deleteFrom('parent_chunks').where('filename', '=', filename).execute();
      }),

    getByIds: async (ids) => {
      if (ids.length === 0) return [];
      const found = await ready('getByIds', async () => {
        const rows = new Map<string, HierarchyChunk>();
        for (const batch of batches([...new Set(ids)], LOOKUP_BATCH)) {
          const page = await db.selectFrom('parent_chunks').select(COLUMNS).where('chunk_id', 'in', batch).execute();
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

    countByFilename: (filename) =>
      ready('countByFilename', async () => {
        const row = await db
          .selectFrom('parent_chunks')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('filename', '=', filename)
          .executeTakeFirstOrThrow();
        return Number(row.n); // PostgreSQL's count is a bigint, which pg returns as a string
      }),

    close: () => db.destroy(),
  };
}
