/**
 * In-memory test doubles of ragtime's own ports (activities/ports.ts) for the retrieval pipeline logic: a leaf
 * store with an exact inner-product dense leg and a term-count "BM25" leg, a parent store, and a deterministic
 * embedder. The real Milvus and SQL stores have their own integration tests; here exact scores and failure
 * injection matter. Each double counts its calls and can be told to fail.
 */
import type { Embedder, HierarchyChunk, LeafHit, LeafSearch, LeafStore, ParentStore } from '../../activities/ports';

export type FakeLeaf = HierarchyChunk & { id: number; dense: number[]; terms: string[] };

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

/** Best first; equal scores by ascending id, so the legs are deterministic. */
function ranked(scored: Array<{ leaf: FakeLeaf; score: number }>, limit: number): LeafHit[] {
  return scored
    .sort((a, b) => b.score - a.score || a.leaf.id - b.leaf.id)
    .slice(0, limit)
    .map(({ leaf, score }) => {
      const { dense: _dense, terms: _terms, ...chunk } = leaf;
      return { ...chunk, score };
    });
}

export class FakeLeafStore implements LeafStore {
  readonly denseCalls: LeafSearch[] = [];
  readonly bm25Calls: Array<LeafSearch & { text: string }> = [];
  /** Errors to throw from the next searches of each leg (shifted per call); `true` = throw on every call. */
  failDense: Array<Error> | true | Error = [];
  failBm25: Array<Error> | true | Error = [];

  constructor(private readonly leaves: FakeLeaf[]) {}

  private static failure(plan: Array<Error> | true | Error, leg: string): Error | undefined {
    if (plan === true) return new Error(`${leg} search failed: <MilvusException: (code=2, message=server unavailable)>`);
    if (plan instanceof Error) return plan;
    return plan.shift();
  }

  async searchDense(vector: number[], search: LeafSearch): Promise<LeafHit[]> {
    this.denseCalls.push(search);
    const failure = FakeLeafStore.failure(this.failDense, 'dense');
    if (failure) throw failure;
    const leaves = this.leaves.filter((leaf) => leaf.chunk_level === search.leafLevel);
    return ranked(leaves.map((leaf) => ({ leaf, score: dot(vector, leaf.dense) })), search.limit);
  }

  /** "BM25": how many of the query's whitespace-separated terms the leaf lists; leaves matching none are not hits. */
  async searchBm25(text: string, search: LeafSearch): Promise<LeafHit[]> {
    this.bm25Calls.push({ ...search, text });
    const failure = FakeLeafStore.failure(this.failBm25, 'BM25');
    if (failure) throw failure;
    const terms = text.split(/\s+/).filter(Boolean);
    const leaves = this.leaves.filter((leaf) => leaf.chunk_level === search.leafLevel);
    const scored = leaves.map((leaf) => ({ leaf, score: terms.filter((t) => leaf.terms.includes(t)).length }));
    return ranked(scored.filter(({ score }) => score > 0), search.limit);
  }

  async ensureCollection(): Promise<void> {}
  async exists(): Promise<boolean> {
    return true;
  }
  async insertLeaves(): Promise<number> {
    throw new Error('FakeLeafStore is read-only');
  }
  async deleteByDocument(): Promise<void> {
    throw new Error('FakeLeafStore is read-only');
  }
  async vectorsOfDocument(): Promise<Map<string, number[]>> {
    return new Map();
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
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

export class FakeParentStore implements ParentStore {
  readonly lookups: string[][] = [];
  /** Errors to throw from the next lookups (shifted per call). */
  readonly failures: Error[] = [];
  private readonly byId: Map<string, HierarchyChunk>;

  constructor(parents: HierarchyChunk[] = []) {
    this.byId = new Map(parents.map((parent) => [parent.chunk_id, parent]));
  }

  /** spec §6.8: in the order of the requested ids, missing ids skipped; errors propagate. */
  async getByIds(ids: string[]): Promise<HierarchyChunk[]> {
    this.lookups.push([...ids]);
    const failure = this.failures.shift();
    if (failure) throw failure;
    return ids.flatMap((id) => {
      const parent = this.byId.get(id);
      return parent ? [{ ...parent }] : [];
    });
  }

  async replaceDocument(): Promise<void> {
    throw new Error('FakeParentStore is read-only');
  }
  async deleteDocument(): Promise<void> {
    throw new Error('FakeParentStore is read-only');
  }
  async countByDocument(docId: string): Promise<number> {
    return [...this.byId.values()].filter((parent) => parent.file_path === docId).length;
  }
}

/** An embedder with a fixed vector per known query; unknown queries (or `fail`) throw. */
export class ScriptedEmbedder implements Embedder {
  readonly model = 'scripted-embedder';
  readonly calls: string[][] = [];
  fail: Error | null = null;

  constructor(
    readonly dim: number,
    private readonly vectors: Record<string, number[]>,
  ) {}

  async embedQueries(texts: string[]): Promise<number[][]> {
    this.calls.push([...texts]);
    if (this.fail) throw this.fail;
    return texts.map((text) => {
      const vector = this.vectors[text];
      if (!vector) throw new Error(`no scripted vector for ${JSON.stringify(text)}`);
      return vector;
    });
  }

  async embedPassages(texts: string[]): Promise<number[][]> {
    return this.embedQueries(texts);
  }
}

/** A leaf of the hierarchy (spec §6.11 ids) with its dense vector and BM25 terms. */
export function fakeLeaf(id: number, fields: { text: string; dense: number[]; terms?: string[]; parent?: string }): FakeLeaf {
  return {
    id,
    chunk_id: `doc.md::p0::l3::${id}`,
    text: fields.text,
    filename: 'doc.md',
    file_type: 'md',
    file_path: '/data/doc.md',
    page_number: 0,
    parent_chunk_id: fields.parent ?? `doc.md::p0::l2::solo${id}`,
    root_chunk_id: 'doc.md::p0::l1::0',
    chunk_level: 3,
    chunk_idx: id,
    dense: fields.dense,
    terms: fields.terms ?? [],
  };
}
