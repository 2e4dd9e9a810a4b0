import { pythonStrip } from '../python-text';
import type { ChunkCounts, LoadedDocument } from './ingest-io';
import { splitText, type SplitterOptions } from './recursive-splitter';

/*
 * Three-level chunking of a document (spec §6.11). The original builds its splitters from a base size of 800 and
 * overlap of 100 (the app's defaults); the resulting sizes are constants here.
 */

/** spec §6.11: separators in priority order — blank line, 。！？, newline, ，、, space, then single characters. */
export const CHUNK_SEPARATORS: readonly string[] = ['\n\n', '。', '！', '？', '\n', '，', '、', ' ', ''];
/** spec §6.11: L1 size max(2000, 3×800) = 2400, overlap max(400, 3×100) = 400. */
export const L1_CHUNK_SIZE = 2400;
export const L1_CHUNK_OVERLAP = 400;
/** spec §6.11: L2 size max(1000, 2×800) = 1600, overlap max(200, 2×100) = 200. */
export const L2_CHUNK_SIZE = 1600;
export const L2_CHUNK_OVERLAP = 200;
/** spec §6.11: L3 size max(600, 800) = 800, overlap max(100, 100) = 100. */
export const L3_CHUNK_SIZE = 800;
export const L3_CHUNK_OVERLAP = 100;
/** spec §6.1: leaves (L3) go to the vector store; L1 and L2 to the parent store (§6.8). */
export const LEAF_LEVEL = 3;

/** A chunk of the hierarchy; the same shape as `HierarchyChunk` of activities/ports.ts. */
export type HierarchyChunk = {
  chunk_id: string;
  text: string;
  filename: string;
  file_type: string;
  file_path: string;
  page_number: number;
  parent_chunk_id: string;
  root_chunk_id: string;
  chunk_level: number;
  chunk_idx: number;
  /** The document's title and heading path where the chunk starts (core/ingest/leaf-context.ts); absent: plain. */
  context?: string;
};

/**
 * spec §6.11: `{filename}::p{page}::l{level}::{n}`, n counting per page and level from 0 (not per parent), with the
 * document id in the file name's place (DESIGN §4b): two files of one base name are two documents, and their chunks
 * must not share ids. The original's documents were identified by their name, so its ids are the same shape.
 */
export function chunkId(docId: string, page: number, level: number, n: number): string {
  return `${docId}::p${page}::l${level}::${n}`;
}

function splitterOptions(chunkSize: number, chunkOverlap: number, onWarning?: (message: string) => void): SplitterOptions {
  return { chunkSize, chunkOverlap, separators: CHUNK_SEPARATORS, onWarning };
}

/** The split texts, each stripped (Python `str.strip`); those empty after stripping are skipped (spec §6.11). */
function pieces(text: string, options: SplitterOptions): string[] {
  return splitText(text, options)
    .map(pythonStrip)
    .filter((piece) => piece !== '');
}

/**
 * The chunks of a sanitized document (core/ingest/sanitize.ts), depth first: an L1, its first L2, that L2's L3s,
 * the next L2, …, then the next L1; page after page. chunk_idx counts every emitted chunk across the document.
 * Each piece is split from its parent's stripped text, as in the original.
 */
export function buildHierarchy(document: LoadedDocument, onWarning?: (message: string) => void): HierarchyChunk[] {
  const l1 = splitterOptions(L1_CHUNK_SIZE, L1_CHUNK_OVERLAP, onWarning);
  const l2 = splitterOptions(L2_CHUNK_SIZE, L2_CHUNK_OVERLAP, onWarning);
  const l3 = splitterOptions(L3_CHUNK_SIZE, L3_CHUNK_OVERLAP, onWarning);
  const { filename, file_type, file_path } = document;
  const chunks: HierarchyChunk[] = [];
  const emit = (text: string, page: number, level: number, n: number, parent: string, root: string | null): string => {
    const id = chunkId(file_path, page, level, n);
    chunks.push({
      chunk_id: id,
      text,
      filename,
      file_type,
      file_path,
      page_number: page,
      parent_chunk_id: parent,
      root_chunk_id: root ?? id,
      chunk_level: level,
      chunk_idx: chunks.length,
    });
    return id;
  };
  for (const { page_number: page, text } of document.pages) {
    if (text === '') continue;
    let n1 = 0;
    let n2 = 0;
    let n3 = 0;
    for (const level1 of pieces(text, l1)) {
      const l1Id = emit(level1, page, 1, n1++, '', null);
      for (const level2 of pieces(level1, l2)) {
        const l2Id = emit(level2, page, 2, n2++, l1Id, l1Id);
        for (const level3 of pieces(level2, l3)) emit(level3, page, 3, n3++, l2Id, l1Id);
      }
    }
  }
  return chunks;
}

/** How many chunks of each level a hierarchy holds. */
export function countLevels(chunks: readonly HierarchyChunk[]): ChunkCounts {
  const counts: ChunkCounts = { l1: 0, l2: 0, l3: 0 };
  for (const chunk of chunks) {
    if (chunk.chunk_level === 1) counts.l1++;
    else if (chunk.chunk_level === 2) counts.l2++;
    else if (chunk.chunk_level === 3) counts.l3++;
  }
  return counts;
}
