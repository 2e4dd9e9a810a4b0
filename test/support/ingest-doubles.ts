import { createKnowledgeStores, type KnowledgeStores } from '../../activities/knowledge/knowledge-stores';
import type { DocumentRegistry, Embedder, HierarchyChunk, LeafCatalog, LeafHit, LeafStore, ParentStore, StoredLeaf } from '../../activities/ports';
import type { DocumentRecord } from '../../core/knowledge/knowledge-base';

/*
 * In-memory doubles of our own knowledge-store ports (activities/ports.ts), for ingestion tests that need no Milvus
 * or SQL: they keep what was written, count calls, and fail on demand. The real adapters are exercised by
 * test/integration/.
 */

export type Leaf = StoredLeaf;

/** A hook that may throw (or wait) before the n-th call (1-based) of an operation. */
export type Hook = (call: number) => void | Promise<void>;

export class MemoryLeafStore implements LeafStore {
  readonly leaves: Leaf[] = [];
  insertCalls = 0;
  flushCalls = 0;
  beforeInsert: Hook = () => undefined;
  beforeDelete: Hook = () => undefined;
  beforeFlush: Hook = () => undefined;
  private deleteCalls = 0;

  async ensureCollection(): Promise<void> {}
  async exists(): Promise<boolean> {
    return true;
  }
  async insertLeaves(leaves: Leaf[]): Promise<number> {
    await this.beforeInsert(++this.insertCalls);
    this.leaves.push(...leaves.map((leaf) => ({ ...leaf })));
    return leaves.length;
  }
  async deleteByDocument(docId: string): Promise<void> {
    await this.beforeDelete(++this.deleteCalls);
    for (let i = this.leaves.length - 1; i >= 0; i--) if (this.leaves[i]?.file_path === docId) this.leaves.splice(i, 1);
  }
  async vectorsOfDocument(docId: string, model: string): Promise<Map<string, number[]>> {
    return new Map(this.leaves.filter((leaf) => leaf.file_path === docId && leaf.embedding_model === model).map((leaf) => [leaf.text, [...leaf.dense]]));
  }
  async countByDocument(docId: string): Promise<number> {
    return this.leaves.filter((leaf) => leaf.file_path === docId).length;
  }
  async countLeaves(): Promise<number> {
    return this.leaves.length;
  }
  async documentsAmong(docIds: string[]): Promise<string[]> {
    return docIds.filter((docId) => this.leaves.some((leaf) => leaf.file_path === docId));
  }
  async flush(): Promise<void> {
    await this.beforeFlush(++this.flushCalls);
  }
  async searchDense(): Promise<LeafHit[]> {
    return [];
  }
  async searchBm25(): Promise<LeafHit[]> {
    return [];
  }
  async close(): Promise<void> {}
  /** The chunk ids of a document (by id) or, when none has that id, of the documents with that base name. */
  ids(docOrName: string): string[] {
    const byId = this.leaves.filter((leaf) => leaf.file_path === docOrName);
    return (byId.length > 0 ? byId : this.leaves.filter((leaf) => leaf.filename === docOrName)).map((leaf) => leaf.chunk_id);
  }
}

export class MemoryParentStore implements ParentStore {
  readonly chunks = new Map<string, HierarchyChunk>();
  beforeReplace: Hook = () => undefined;
  private replaceCalls = 0;

  async replaceDocument(docId: string, chunks: HierarchyChunk[]): Promise<void> {
    await this.beforeReplace(++this.replaceCalls);
    await this.deleteDocument(docId);
    for (const chunk of chunks) this.chunks.set(chunk.chunk_id, { ...chunk });
  }
  async deleteDocument(docId: string): Promise<void> {
    for (const [id, chunk] of this.chunks) if (chunk.file_path === docId) this.chunks.delete(id);
  }
  async getByIds(ids: string[]): Promise<HierarchyChunk[]> {
    return ids.flatMap((id) => (this.chunks.has(id) ? [this.chunks.get(id)!] : []));
  }
  async countByDocument(docId: string): Promise<number> {
    return [...this.chunks.values()].filter((chunk) => chunk.file_path === docId).length;
  }
  /** The chunk ids of a document (by id) or, when none has that id, of the documents with that base name. */
  ids(docOrName: string): string[] {
    const all = [...this.chunks.values()];
    const byId = all.filter((chunk) => chunk.file_path === docOrName);
    return (byId.length > 0 ? byId : all.filter((chunk) => chunk.filename === docOrName)).map((chunk) => chunk.chunk_id);
  }
}

/** The document registry in memory. */
export class MemoryDocumentRegistry implements DocumentRegistry {
  readonly records = new Map<string, DocumentRecord>();
  private key = (kb: string, docId: string) => `${kb}\u0000${docId}`;
  async get(kb: string, docId: string) {
    return this.records.get(this.key(kb, docId)) ?? null;
  }
  async findBySource(kb: string, source: string) {
    return [...this.records.values()].filter((record) => record.kb === kb && record.source === source);
  }
  async put(record: DocumentRecord) {
    this.records.set(this.key(record.kb, record.doc_id), { ...record });
  }
  async remove(kb: string, docId: string) {
    this.records.delete(this.key(kb, docId));
  }
  async list(kb: string) {
    return [...this.records.values()].filter((record) => record.kb === kb).sort((a, b) => a.doc_id.localeCompare(b.doc_id));
  }
  async knowledgeBases() {
    return [...new Set([...this.records.values()].map((record) => record.kb))].sort();
  }
  async dropKb(kb: string) {
    for (const [key, record] of this.records) if (record.kb === kb) this.records.delete(key);
  }
}

/** Deterministic unit vectors from the text's characters; records every batch it embeds. */
export class FakeEmbedder implements Embedder {
  readonly model = 'fake-embedder';
  readonly batches: string[][] = [];
  /** Texts per request, as an HTTP embedder declares it (ingestion then embeds a leaf batch in such requests). */
  batchSize: number | undefined = undefined;
  /** Requests ingestion may keep in flight (EMBEDDING_CONCURRENCY). */
  concurrency: number | undefined = undefined;
  beforeEmbed: Hook = () => undefined;
  private calls = 0;

  constructor(readonly dim = 8) {}

  async embedQueries(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.vector(text));
  }
  async embedPassages(texts: string[]): Promise<number[][]> {
    await this.beforeEmbed(++this.calls);
    this.batches.push(texts);
    return texts.map((text) => this.vector(text));
  }
  private vector(text: string): number[] {
    const v = new Array<number>(this.dim).fill(0);
    for (const ch of text) v[(ch.codePointAt(0) ?? 0) % this.dim]! += 1;
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  }
}

/** The default knowledge base of the doubles. */
export const MEMORY_KB = 'memory_kb';

/**
 * The in-memory knowledge of one knowledge base (MEMORY_KB, the default): its leaf store, parent store and registry,
 * the embedder, and `knowledge` — the KnowledgeStores the ingest activities take (so the result is also IngestDeps).
 */
export function ingestDoubles(dim = 8): { leafStore: MemoryLeafStore; parentStore: MemoryParentStore; embedder: FakeEmbedder; documents: MemoryDocumentRegistry; knowledge: KnowledgeStores } {
  const leafStore = new MemoryLeafStore();
  const parentStore = new MemoryParentStore();
  const embedder = new FakeEmbedder(dim);
  const documents = new MemoryDocumentRegistry();
  const catalog: LeafCatalog = {
    leafStore: (kb) => {
      if (kb !== MEMORY_KB) throw new Error(`the in-memory knowledge holds ${MEMORY_KB} only, not ${kb}`);
      return leafStore;
    },
    list: async () => [MEMORY_KB],
    drop: async () => undefined,
    close: async () => undefined,
  };
  const knowledge = createKnowledgeStores({ defaultKb: MEMORY_KB, catalog, parentsFor: () => parentStore, documents, embedder });
  return { leafStore, parentStore, embedder, documents, knowledge };
}
