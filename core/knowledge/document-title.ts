import type { Chunk } from '../schemas/retrieved-chunk';

/*
 * What a person reads to tell documents apart (issue 32 §2): a document's title, from the first Markdown heading of
 * level 1 its text holds ("# 北极星X1 使用手册"), else its file name without the extension ("beiji-x1").
 * Pure: it reads the chunks a retrieval returned (or, at ingestion, the document's pages), nothing else.
 */

const H1 = /^#[ \t]+(.+?)[ \t#]*$/m;

/** Separates the title from the headings in a leaf's context (core/ingest/leaf-context.ts): "tar › Extract archives". */
export const CONTEXT_SEPARATOR = ' › ';

/** The file name without its extension. */
export const fileStem = (filename: string): string => filename.replace(/\.[^./\\]+$/, '');

/** The text of the first level-1 Markdown heading in `text`, or null. */
export const firstH1 = (text: string): string | null => H1.exec(text)?.[1]?.trim() || null;

/** A document's title from its texts in order (pages, or chunks): the first level-1 heading, else the file stem. */
export function titleOfTexts(texts: Iterable<string>, filename: string): string {
  for (const text of texts) {
    const heading = firstH1(text);
    if (heading) return heading;
  }
  return fileStem(filename);
}

/** A document's id as retrieval reports it: its doc_id, else the path it was stored under, else its file name. */
export const documentIdOf = (chunk: Chunk): string => chunk.doc_id ?? chunk.file_path ?? chunk.filename ?? '';

/**
 * The title of the document `chunk` belongs to, read from every chunk of that document in `chunks`: a level-1
 * heading in their text, else the title a contextual leaf carries (the first part of its `context`, taken from the
 * whole document at ingestion), else the file stem.
 */
export function documentTitle(chunk: Chunk, chunks: readonly Chunk[]): string {
  const id = documentIdOf(chunk);
  const same = chunks.filter((other) => documentIdOf(other) === id);
  for (const other of same) {
    const heading = firstH1(other.text ?? '');
    if (heading) return heading;
  }
  const context = same.find((other) => typeof other.context === 'string' && other.context !== '')?.context;
  if (context) return context.split(CONTEXT_SEPARATOR)[0]!.trim();
  return fileStem(chunk.filename ?? id);
}
