import { z } from 'zod';
import { CONTEXT_SEPARATOR, fileStem, titleOfTexts } from '../knowledge/document-title';
import type { HierarchyChunk } from './hierarchy';
import type { LoadedDocument } from './ingest-io';

/*
 * Contextual leaves (issue 42 §1). A leaf alone does not say which document it is in: a company's "客服热线 400-…"
 * section lacks the company's name, which is in the title; a command page's command name and a release note's
 * version are in theirs. So every chunk gets a `context`: the document's title and the Markdown headings in force
 * where the chunk starts ("tar › Extract archives"). The context is embedded and keyword-indexed with the chunk
 * (`indexedText`) and read by the grader beside it; the chunk's `text` stays the document's own words, which answers
 * quote and citations are checked against.
 */

/**
 * How a knowledge base's leaves were chunked, recorded per knowledge base (the leaf collection's schema says it:
 * activities/adapters/milvus/schema.ts). `plain`: the leaf text alone is embedded and indexed (every knowledge base
 * created before issue 42). `contextual-v1`: `context + "\n" + text` is.
 */
export const ChunkingVersion = z.enum(['plain', 'contextual-v1']);
export type ChunkingVersion = z.infer<typeof ChunkingVersion>;

/** The chunking of knowledge bases created now. */
export const CHUNKING_VERSION: ChunkingVersion = 'contextual-v1';
/** The chunking of knowledge bases created before contextual leaves. */
export const PLAIN_CHUNKING: ChunkingVersion = 'plain';

/**
 * A context longer than this is cut (with "…"): a title and a few headings fit; a runaway heading must not crowd
 * the leaf out of the embedder's 512 tokens.
 */
export const CONTEXT_MAX_CHARS = 300;

/** File types whose text holds Markdown headings: Markdown as written, HTML as its loader linearizes it. */
const HEADED_TYPES: ReadonlySet<string> = new Set(['Markdown', 'HTML']);

export type Heading = { offset: number; level: number; text: string };

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;
/** The line the HTML loader puts before a section's "## " heading (activities/adapters/loaders/html-loader.ts). */
const HTML_SECTION = /^\[章节: (.+)\]$/;

/**
 * The ATX headings of a Markdown text with their offsets; lines inside fenced code blocks are not headings. With
 * `htmlSections`, the HTML loader's "[章节: …]" line counts as a level-2 heading: it opens each section, before the
 * section's own "## " line, so a leaf that starts on it is in that section.
 */
export function markdownHeadings(text: string, htmlSections = false): Heading[] {
  const headings: Heading[] = [];
  let fence: string | null = null;
  let offset = 0;
  for (const line of text.split('\n')) {
    const opens = FENCE.exec(line)?.[1];
    if (opens) fence = fence === null ? opens : fence === opens ? null : fence;
    else if (fence === null) {
      const match = HEADING.exec(line.replace(/\r$/, ''));
      const section = htmlSections ? HTML_SECTION.exec(line)?.[1]?.trim() : undefined;
      if (match) headings.push({ offset, level: match[1]!.length, text: match[2]!.trim() });
      else if (section) headings.push({ offset, level: 2, text: section });
    }
    offset += line.length + 1;
  }
  return headings;
}

/** A heading stack: a heading replaces those of its level and below. */
type Trail = ReadonlyArray<{ level: number; text: string }>;

const push = (trail: Trail, heading: { level: number; text: string }): Trail => [...trail.filter((h) => h.level < heading.level), heading];

/** The headings in force at `offset` of a text, after `trail` (those in force where the text begins). */
export function headingPath(headings: readonly Heading[], offset: number, trail: Trail = []): string[] {
  let current = trail;
  for (const heading of headings) if (heading.offset <= offset) current = push(current, heading);
  return current.map((h) => h.text);
}

/** "title › heading › heading"; the document's level-1 heading is the title already and is not repeated. */
export function leafContext(title: string, path: readonly string[]): string {
  const parts = [title, ...(path[0] === title ? path.slice(1) : path)].filter((part) => part !== '');
  const context = parts.join(CONTEXT_SEPARATOR);
  return context.length <= CONTEXT_MAX_CHARS ? context : `${context.slice(0, CONTEXT_MAX_CHARS - 1)}…`;
}

/** What is embedded and keyword-indexed for a chunk: its context, a newline, its text; the text alone without one. */
export function indexedText(chunk: { text: string; context?: string }): string {
  return chunk.context ? `${chunk.context}\n${chunk.text}` : chunk.text;
}

/**
 * Where `piece` starts in `text`, searching from `from` (the splitter emits pieces in order, overlapping). A piece is
 * normally a substring; if not (whitespace the splitter joined differently), its first characters are looked for,
 * else the previous position is kept: the heading path may then lag by a piece, never run ahead.
 */
export function locate(text: string, piece: string, from: number): number {
  const exact = text.indexOf(piece, from);
  if (exact !== -1) return exact;
  const head = text.indexOf(piece.slice(0, 40), from);
  return head !== -1 ? head : Math.max(0, Math.min(from - 1, text.length));
}

/**
 * The chunks of `buildHierarchy(document)` with their context. `document` is the sanitized document they were split
 * from. Each chunk is found in its parent's text (an L1 in its page), so its start is known in the page; the
 * headings in force there, after those of earlier pages (an HTML section continues its page title), make its path.
 * Text, Word and PDF files have no headings: their context is the title.
 */
export function withLeafContexts(document: LoadedDocument, chunks: readonly HierarchyChunk[]): HierarchyChunk[] {
  const headed = HEADED_TYPES.has(document.file_type);
  const html = document.file_type === 'HTML';
  const pageText = new Map(document.pages.map((page) => [page.page_number, page.text]));
  const headingsOf = new Map(document.pages.map((page) => [page.page_number, headed ? markdownHeadings(page.text, html) : []]));
  // Markdown and HTML: the first level-1 heading outside code ("# " in a shell example is a comment); other types:
  // the first "# " line, as document-title.ts reads retrieved chunks.
  const h1 = [...headingsOf.values()].flat().find((heading) => heading.level === 1)?.text;
  const title = headed ? (h1 ?? fileStem(document.filename)) : titleOfTexts(document.pages.map((page) => page.text), document.filename);
  // The trail in force at the start of each page: the headings of every earlier page applied in order.
  const trailAt = new Map<number, Trail>();
  let trail: Trail = [];
  for (const page of document.pages) {
    trailAt.set(page.page_number, trail);
    for (const heading of headingsOf.get(page.page_number) ?? []) trail = push(trail, heading);
  }

  const start = new Map<string, number>(); // chunk id → offset in its page
  const cursor = new Map<string, number>(); // parent (or page) → where its next child is looked for
  const byId = new Map(chunks.map((chunk) => [chunk.chunk_id, chunk]));
  return chunks.map((chunk) => {
    const parent = chunk.parent_chunk_id ? byId.get(chunk.parent_chunk_id) : undefined;
    const container = parent ? parent.text : (pageText.get(chunk.page_number) ?? '');
    const base = parent ? (start.get(parent.chunk_id) ?? 0) : 0;
    const key = parent ? parent.chunk_id : `page:${chunk.page_number}`;
    const at = locate(container, chunk.text, cursor.get(key) ?? 0);
    cursor.set(key, at + 1);
    start.set(chunk.chunk_id, base + at);
    const path = headingPath(headingsOf.get(chunk.page_number) ?? [], base + at, trailAt.get(chunk.page_number) ?? []);
    return { ...chunk, context: leafContext(title, path) };
  });
}

/** The chunks as a knowledge base of `chunking` stores them: without a context in a `plain` one. */
export function chunksFor<T extends { context?: string }>(chunks: readonly T[], chunking: ChunkingVersion): T[] {
  if (chunking !== PLAIN_CHUNKING) return [...chunks];
  return chunks.map((chunk) => {
    const plain = { ...chunk };
    delete plain.context;
    return plain;
  });
}
