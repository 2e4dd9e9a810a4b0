import {
  AUTO_MERGE_PASSES,
  autoMergeMeta,
  mergePass,
  qualifyingParentIds,
} from '../../../core/retrieval/auto-merge';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';

/*
 * Auto-merging L3 → L2 → L1 (spec §6.5). The core splits each pass around the parent fetch (I/O); these tests play
 * the retrieval activity: a Map stands in for the parent-chunk store (spec §6.8), and the pass runs twice.
 */

type ParentStore = ReadonlyMap<string, Chunk>;

/** spec §6.8: parents come back for the requested ids that exist; missing ids are skipped. */
function fetchParents(store: ParentStore, ids: readonly string[]): Map<string, Chunk> {
  const found = new Map<string, Chunk>();
  for (const id of ids) {
    const parent = store.get(id);
    if (parent) found.set(id, parent);
  }
  return found;
}

/** spec §6.5.1 as the retrieval activity will run it: disabled or empty → unchanged; else two passes. */
function autoMerge(candidates: Chunk[], store: ParentStore, options: { enabled?: boolean; threshold?: number } = {}) {
  const enabled = options.enabled ?? true;
  const threshold = options.threshold ?? 2;
  const fetched: string[][] = [];
  const replacedPerPass: number[] = [];
  let chunks = candidates;
  if (enabled && candidates.length > 0) {
    for (let pass = 0; pass < AUTO_MERGE_PASSES; pass += 1) {
      const ids = qualifyingParentIds(chunks, threshold);
      // spec §6.5.1 step 2: nothing qualifies → the pass returns its input, count 0, without a store lookup.
      if (ids.length > 0) fetched.push(ids);
      const result = ids.length > 0 ? mergePass(chunks, fetchParents(store, ids), threshold) : { chunks, replaced: 0 };
      chunks = result.chunks;
      replacedPerPass.push(result.replaced);
    }
  }
  return { chunks, fetched, meta: autoMergeMeta({ enabled, threshold, replacedPerPass, resultCount: chunks.length }) };
}

// Ids follow spec §6.11: `{filename}::p{page}::l{level}::{n}`.
const L1X = 'doc.pdf::p1::l1::0';
const L1Y = 'doc.pdf::p1::l1::1';
const L2A = 'doc.pdf::p1::l2::0';
const L2B = 'doc.pdf::p1::l2::1';
const L2Z = 'doc.pdf::p1::l2::2';
const L2C = 'doc.pdf::p1::l2::3';

/** A parent as the store returns it: no Milvus id, no score, carries file_path (spec §6.5.1 last line). */
function parent(chunkId: string, parentId: string, level: 1 | 2): Chunk {
  return {
    chunk_id: chunkId,
    parent_chunk_id: parentId,
    root_chunk_id: level === 1 ? chunkId : parentId,
    chunk_level: level,
    text: `text of ${chunkId}`,
    filename: 'doc.pdf',
    file_type: 'pdf',
    file_path: '/data/doc.pdf',
    page_number: 1,
    chunk_idx: 0,
  };
}

function leaf(name: string, parentId: string, score: number): Chunk {
  return {
    id: name.length,
    chunk_id: `doc.pdf::p1::l3::${name}`,
    parent_chunk_id: parentId,
    root_chunk_id: L1X,
    chunk_level: 3,
    text: name,
    filename: 'doc.pdf',
    page_number: 1,
    score,
  };
}

const STORE: ParentStore = new Map([
  [L1X, parent(L1X, '', 1)],
  [L1Y, parent(L1Y, '', 1)],
  [L2A, parent(L2A, L1X, 2)],
  [L2B, parent(L2B, L1X, 2)],
  [L2Z, parent(L2Z, L1Y, 2)],
  [L2C, parent(L2C, L1Y, 2)],
]);

// spec §9 U13: c1,c2 → L2a; c3,c4 → L2b; L2a,L2b → L1x; c9 → L2z (single); c5 → L2c (single).
const c1 = leaf('c1', L2A, 0.02);
const c2 = leaf('c2', L2A, 0.031);
const c3 = leaf('c3', L2B, 0.025);
const c4 = leaf('c4', L2B, 0.028);
const c9 = leaf('c9', L2Z, 0.016);
const c5 = leaf('c5', L2C, 0.03);

describe('auto-merge (spec §6.5)', () => {
  test('U13 two passes: four leaves under two L2 parents under one L1 → the L1 root; singles stay', () => {
    const { chunks, meta, fetched } = autoMerge([c1, c2, c3, c4, c9, c5], STORE);

    // Pass 1 fetches the two qualifying L2 parents, pass 2 their common L1 root.
    expect(fetched).toEqual([[L2A, L2B], [L1X]]);
    // The L1's score is the max of all its leaves (0.031, from c2); merged_child_count counts its direct group (2 L2s).
    expect(chunks).toEqual([
      { ...STORE.get(L1X), score: 0.031, merged_from_children: true, merged_child_count: 2 },
      c9,
      c5,
    ]);
    // spec §6.5.1: replaced = 4 (pass 1) + 2 (pass 2) = 6 — the same evidence counted twice; steps 2.
    expect(meta).toEqual({
      auto_merge_enabled: true,
      auto_merge_applied: true,
      auto_merge_threshold: 2,
      auto_merge_replaced_chunks: 6,
      auto_merge_steps: 2,
      post_merge_candidate_count: 3,
    });
  });

  test('U13 pass 1 alone: leaves replaced by L2 parents with max child scores', () => {
    const candidates = [c1, c2, c3, c4, c9, c5];

    expect(qualifyingParentIds(candidates, 2)).toEqual([L2A, L2B]);
    const { chunks, replaced } = mergePass(candidates, fetchParents(STORE, [L2A, L2B]), 2);

    expect(replaced).toBe(4);
    expect(chunks).toEqual([
      { ...STORE.get(L2A), score: 0.031, merged_from_children: true, merged_child_count: 2 },
      { ...STORE.get(L2B), score: 0.028, merged_from_children: true, merged_child_count: 2 },
      c9,
      c5,
    ]);
  });

  test('U14 two leaves share a parent missing from the store → unchanged, not applied, replaced 0', () => {
    const orphanA = leaf('o1', 'doc.pdf::p9::l2::0', 0.02);
    const orphanB = leaf('o2', 'doc.pdf::p9::l2::0', 0.03);

    const { chunks, meta, fetched } = autoMerge([orphanA, orphanB], STORE);

    expect(chunks).toEqual([orphanA, orphanB]);
    // The parent qualifies in both passes and is looked up both times.
    expect(fetched).toEqual([['doc.pdf::p9::l2::0'], ['doc.pdf::p9::l2::0']]);
    expect(meta).toEqual({
      auto_merge_enabled: true,
      auto_merge_applied: false,
      auto_merge_threshold: 2,
      auto_merge_replaced_chunks: 0,
      auto_merge_steps: 0,
      post_merge_candidate_count: 2,
    });
  });

  test.each([1, 0, -3])('threshold %i (≤ 1, not clamped, spec §1) merges every child whose parent exists', (threshold) => {
    const orphan = leaf('o1', 'doc.pdf::p9::l2::0', 0.05);

    const { chunks, meta } = autoMerge([c1, c2, c3, c4, c9, c5, orphan], STORE, { threshold });

    // Pass 1: all six leaves → L2a, L2b, L2z, L2c (6); pass 2: L2a, L2b → L1x and L2z, L2c → L1y (4).
    expect(chunks).toEqual([
      { ...STORE.get(L1X), score: 0.031, merged_from_children: true, merged_child_count: 2 },
      { ...STORE.get(L1Y), score: 0.03, merged_from_children: true, merged_child_count: 2 },
      orphan,
    ]);
    expect(meta).toMatchObject({ auto_merge_replaced_chunks: 10, auto_merge_steps: 2, post_merge_candidate_count: 3 });
  });

  test('a single child with threshold 1 becomes its parent with merged_child_count 1', () => {
    const { chunks, replaced } = mergePass([c9], fetchParents(STORE, [L2Z]), 1);

    expect(replaced).toBe(1);
    expect(chunks).toEqual([{ ...STORE.get(L2Z), score: 0.016, merged_from_children: true, merged_child_count: 1 }]);
  });

  test('order is preserved: a merged parent takes the position of its first child', () => {
    const { chunks, meta } = autoMerge([c9, c3, c1, c5, c4, c2], STORE);

    // Pass 1: [c9, L2b, L2a, c5]; pass 2: L2b (first child of L1x) holds position 1.
    expect(chunks.map((chunk) => chunk.chunk_id)).toEqual([c9.chunk_id, L1X, c5.chunk_id]);
    expect(meta).toMatchObject({ auto_merge_replaced_chunks: 6, auto_merge_steps: 2 });
  });

  test('the merged score is the max of the children whichever child comes first (spec §6.5.2)', () => {
    const high = leaf('h', L2A, 0.9);
    const low = leaf('l', L2A, 0.1);

    expect(mergePass([high, low], STORE, 2).chunks[0]?.score).toBe(0.9);
    expect(mergePass([low, high], STORE, 2).chunks[0]?.score).toBe(0.9);
  });

  test('merged_child_count is the size of the parent group among the candidates', () => {
    const third = leaf('c1b', L2A, 0.01);

    const { chunks, replaced } = mergePass([c1, third, c2, c9], STORE, 2);

    expect(replaced).toBe(3);
    expect(chunks[0]).toMatchObject({ chunk_id: L2A, merged_child_count: 3, merged_from_children: true, score: 0.031 });
    expect(chunks[1]).toBe(c9);
  });

  test('one step only when the merged parents do not share a root', () => {
    const { meta } = autoMerge([c1, c2, c9], STORE);

    // Pass 1 merges c1, c2 → L2a; in pass 2 L2a is alone under L1x (threshold 2).
    expect(meta).toMatchObject({ auto_merge_applied: true, auto_merge_replaced_chunks: 2, auto_merge_steps: 1 });
  });

  test('empty input → empty output and a not-applied meta with post_merge_candidate_count 0', () => {
    expect(qualifyingParentIds([], 2)).toEqual([]);
    expect(mergePass([], STORE, 2)).toEqual({ chunks: [], replaced: 0 });
    expect(autoMerge([], STORE).meta).toEqual({
      auto_merge_enabled: true,
      auto_merge_applied: false,
      auto_merge_threshold: 2,
      auto_merge_replaced_chunks: 0,
      auto_merge_steps: 0,
      post_merge_candidate_count: 0,
    });
  });

  test('disabled → input unchanged, meta says enabled false and counts the input', () => {
    const candidates = [c1, c2];

    const { chunks, meta, fetched } = autoMerge(candidates, STORE, { enabled: false });

    expect(chunks).toBe(candidates);
    expect(fetched).toEqual([]);
    expect(meta).toEqual({
      auto_merge_enabled: false,
      auto_merge_applied: false,
      auto_merge_threshold: 2,
      auto_merge_replaced_chunks: 0,
      auto_merge_steps: 0,
      post_merge_candidate_count: 2,
    });
  });

  test('parent ids are trimmed before grouping; blank parent ids are ignored', () => {
    const padded = leaf('p1', `  ${L2A} `, 0.02);
    const tabbed = leaf('p2', `${L2A}\t`, 0.03);
    const blank = leaf('b1', '   ', 0.04);
    const blank2 = leaf('b2', '', 0.05);

    expect(qualifyingParentIds([padded, tabbed, blank, blank2], 2)).toEqual([L2A]);
    const { chunks, replaced } = mergePass([padded, tabbed, blank, blank2], STORE, 2);
    expect(replaced).toBe(2);
    expect(chunks).toEqual([
      { ...STORE.get(L2A), score: 0.03, merged_from_children: true, merged_child_count: 2 },
      blank,
      blank2,
    ]);
  });

  test('qualifying parent ids come in first-seen order and only at the threshold', () => {
    expect(qualifyingParentIds([c3, c1, c4, c9, c2], 2)).toEqual([L2B, L2A]);
    expect(qualifyingParentIds([c3, c1, c4, c9, c2], 3)).toEqual([]);
  });

  test('a fetched parent below the threshold is not merged (same result as fetching only qualifying parents)', () => {
    const candidates = [c1, c2, c9];

    expect(mergePass(candidates, STORE, 2)).toEqual(mergePass(candidates, fetchParents(STORE, [L2A]), 2));
    expect(mergePass(candidates, STORE, 2).chunks[1]).toBe(c9);
  });

  test('inputs and stored parents are not mutated (the parent is copied, spec §6.5.1 step 4)', () => {
    const before = JSON.stringify({ leaves: [c1, c2], parent: STORE.get(L2A) });

    mergePass([c1, c2], STORE, 2);

    expect(JSON.stringify({ leaves: [c1, c2], parent: STORE.get(L2A) })).toBe(before);
    expect(STORE.get(L2A)).not.toHaveProperty('merged_from_children');
  });
});
