import type { Embedder, HierarchyChunk, LeafHit, LeafStore, ParentStore } from '../../activities/ports';

/*
 * In-memory doubles of our own knowledge-store ports (activities/ports.ts), for ingestion tests that need no Milvus
 * or SQL: they keep what was written, count calls, and fail on demand. The real adapters are exercised by
 * test/integration/.
 */

export type Leaf = HierarchyChunk & { dense: number[] };

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
  async insertLeaves(leaves: Leaf[]): Promise<number> {
    await this.beforeInsert(++this.insertCalls);
    this.leaves.push(...leaves.map((leaf) => ({ ...leaf })));
    return leaves.length;
  }
  async deleteByFilename(filename: string): Promise<void> {
    await this.beforeDelete(++this.deleteCalls);
    for (let i = this.leaves.length - 1; i >= 0; i--) if (this.leaves[i]?.filename === filename) this.leaves.splice(i, 1);
  }
  async countByFilename(filename: string): Promise<number> {
    return this.leaves.filter((leaf) => leaf.filename === filename).length;
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
  ids(filename: string): string[] {
    return this.leaves.filter((leaf) => leaf.filename === filename).map((leaf) => leaf.chunk_id);
  }
}

export class MemoryParentStore implements ParentStore {
  readonly chunks = new Map<string, HierarchyChunk>();
  beforeReplace: Hook = () => undefined;
  private replaceCalls = 0;

  async replaceFile(filename: string, chunks: HierarchyChunk[]): Promise<void> {
    await this.beforeReplace(++this.replaceCalls);
    await this.deleteFile(filename);
    for (const chunk of chunks) this.chunks.set(chunk.chunk_id, { ...chunk });
  }
  async deleteFile(filename: string): Promise<void> {
    for (const [id, chunk] of this.chunks) if (chunk.filename === filename) this.chunks.delete(id);
  }
  async getByIds(ids: string[]): Promise<HierarchyChunk[]> {
    return ids.flatMap((id) => (this.chunks.has(id) ? [this.chunks.get(id)!] : []));
  }
  async countByFilename(filename: string): Promise<number> {
    return [...this.chunks.values()].filter((chunk) => chunk.filename === filename).length;
  }
  async close(): Promise<void> {}
  ids(filename: string): string[] {
    return [...this.chunks.values()].filter((chunk) => chunk.filename === filename).map((chunk) => chunk.chunk_id);
  }
}

/** Deterministic unit vectors from the text's characters; records every batch it embeds. */
export class FakeEmbedder implements Embedder {
  readonly model = 'fake-embedder';
  readonly batches: string[][] = [];
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

export function ingestDoubles(dim = 8) {
  return { leafStore: new MemoryLeafStore(), parentStore: new MemoryParentStore(), embedder: new FakeEmbedder(dim) };
}
