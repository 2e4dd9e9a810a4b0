import { type DescribeCollectionResponse, FunctionType, LoadState, type MilvusClient } from '@zilliz/milvus2-sdk-node';
import type { ChunkingVersion } from '../../../core/ingest/leaf-context';
import { RagError } from '../../../core/errors';
import { milvusCall } from './calls';
import { chunkingOfBm25Input, collectionSchema, DENSE_INDEX, FIELD, REQUIRED_FIELDS, SPARSE_INDEX, SPEC_DROP_RATIO } from './schema';

/*
 * ensureCollection (spec §6.10): create the collection when missing, check an existing one, create missing indexes
 * one at a time with index and metric types always given (Milvus Lite traps, DESIGN §6), and load it.
 */

export type CollectionTarget = { client: MilvusClient; collection: string; dim: number; where: string; address: string };

/** Milvus' refusal of a read on a collection that is not loaded: Lite's "is in state 'released'; call load()", or 101. */
export const NOT_LOADED = /call load\(\)|collection not loaded| failed: 101: /i;
// Milvus Lite 3.2.2 refuses any other value (verified); Milvus and Zilliz take the spec's 0.2.
export const ONLY_ZERO_DROP_RATIO = /only drop_ratio_(build|search)=0 is supported/i;

function denseDimOf(field: { dim?: unknown; type_params?: Array<{ key: string; value: unknown }> }): number {
  const fromParams = field.type_params?.find((p) => p.key === 'dim')?.value;
  return Number(field.dim ?? fromParams);
}

/**
 * The chunking a described collection records (issue 42 §1): that of its BM25 function's input field (`text`:
 * plain, `indexed_text`: contextual-v1); null when no BM25 function writes the sparse field from either.
 */
export function chunkingOfCollection(described: Pick<DescribeCollectionResponse, 'schema'>): ChunkingVersion | null {
  for (const f of described.schema.functions ?? []) {
    if (!(f.type === FunctionType.BM25 || f.type === 'BM25') || !(f.output_field_names ?? []).includes(FIELD.sparse)) continue;
    const chunking = chunkingOfBm25Input((f.input_field_names ?? [])[0] ?? '');
    if (chunking) return chunking;
  }
  return null;
}

/** The chunking of the collection as Milvus describes it now; null as for chunkingOfCollection. */
export async function readChunking({ client, collection, where }: CollectionTarget): Promise<ChunkingVersion | null> {
  return chunkingOfCollection(await milvusCall(where, 'describeCollection', () => client.describeCollection({ collection_name: collection })));
}

async function checkExisting({ client, collection, dim, where, address }: CollectionTarget): Promise<void> {
  const described = await milvusCall(where, 'describeCollection', () => client.describeCollection({ collection_name: collection }));
  const fields = new Map(described.schema.fields.map((f) => [f.name, f]));
  const missing = REQUIRED_FIELDS.filter((name) => !fields.has(name));
  if (missing.length > 0) {
    throw new RagError(
      'INVALID_CONFIG',
      `Milvus collection "${collection}" at ${address} exists but is not a ragtime leaf collection (missing fields: ` +
        `${missing.join(', ')}); set MILVUS_COLLECTION to another name, or drop it so that it is created again`,
    );
  }
  // Without the BM25 function the sparse field is a plain vector: every BM25 search fails, and every retrieval
  // would silently fall back to dense recall (spec §6.1 step 4).
  if (chunkingOfCollection(described) === null) {
    throw new RagError(
      'INVALID_CONFIG',
      `Milvus collection "${collection}" at ${address} exists but is not a ragtime leaf collection: ${FIELD.sparse} is ` +
        `not the output of a BM25 function over ${FIELD.text} (or ${FIELD.indexedText}), so BM25 search cannot run; set ` +
        'MILVUS_COLLECTION to another name, or drop it so that it is created again',
    );
  }
  const existing = denseDimOf(fields.get(FIELD.dense)!);
  if (existing !== dim) {
    throw new RagError(
      'INVALID_CONFIG',
      `Milvus collection "${collection}" at ${address} stores ${FIELD.dense} vectors of dimension ${existing}, but the ` +
        `embeddings have dimension ${dim} (EMBEDDING_DIM): set MILVUS_COLLECTION to a new name and ingest again, drop ` +
        `"${collection}" to rebuild it, or use an embedding model of dimension ${existing}`,
    );
  }
}

async function createIfMissing(target: CollectionTarget): Promise<void> {
  const { client, collection, dim, where } = target;
  const exists = async () => (await milvusCall(where, 'hasCollection', () => client.hasCollection({ collection_name: collection }))).value;
  if (await exists()) return checkExisting(target);
  try {
    await milvusCall(where, 'createCollection', () => client.createCollection(collectionSchema(collection, dim)));
  } catch (error) {
    // Another process may have created it in between: then check that one instead.
    if (!(await exists())) throw error;
    await checkExisting(target);
  }
}

async function indexedFields({ client, collection }: CollectionTarget): Promise<Set<string>> {
  // Without indexes, Milvus answers with an error status ("no index on collection ..."): that is an empty set.
  // Transport errors still throw.
  const reply = await client.describeIndex({ collection_name: collection });
  return new Set((reply.index_descriptions ?? []).map((d) => d.field_name));
}

async function createIndexes(target: CollectionTarget): Promise<void> {
  const { client, collection, where } = target;
  const have = await milvusCall(where, 'describeIndex', () => indexedFields(target));
  if (!have.has(FIELD.dense)) {
    await milvusCall(where, `createIndex ${FIELD.dense}`, () => client.createIndex({ collection_name: collection, ...DENSE_INDEX }));
  }
  if (!have.has(FIELD.sparse)) {
    const create = (ratio: number) =>
      milvusCall(where, `createIndex ${FIELD.sparse}`, () =>
        client.createIndex({ collection_name: collection, ...SPARSE_INDEX, params: { drop_ratio_build: ratio } }),
      );
    await create(SPEC_DROP_RATIO).catch((error: unknown) => {
      if (!ONLY_ZERO_DROP_RATIO.test(String(error))) throw error;
      return create(0);
    });
  }
}

/** Loads the collection unless it is loaded (Milvus Lite forgets the load state on restart); true if it loaded it. */
export async function loadIfNeeded({ client, collection, where }: CollectionTarget): Promise<boolean> {
  const { state } = await milvusCall(where, 'getLoadState', () => client.getLoadState({ collection_name: collection }));
  if (state === LoadState.LoadStateLoaded) return false;
  await milvusCall(where, 'loadCollection', () => client.loadCollection({ collection_name: collection }));
  return true;
}

export async function ensureCollection(target: CollectionTarget): Promise<void> {
  await createIfMissing(target);
  await createIndexes(target);
  await loadIfNeeded(target);
}
