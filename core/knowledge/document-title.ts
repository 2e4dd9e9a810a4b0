import type { Chunk } from '../schemas/retrieved-chunk';

/*
 * What a person reads to tell documents apart (issue 32 §2): a document's title, from the first Markdown heading of
 * level 1 its retrieved text holds ("# 北极星X1 使用手册"), else its file name without the extension ("beiji-x1").
 * Pure: it reads the chunks a retrieval returned, nothing else.
 */

const H1 = /^#[ \t]+(.+?)[ \t#]*$/m;

/** The file name without its extension. */
export const fileStem = (filename: string): string => filename.replace(/\.[^./\\]+$/, '');

/** A document's id as retrieval reports it: its doc_id, else the path it was stored under, else its file name. */
export const documentIdOf = (chunk: Chunk): string => chunk.doc_id ?? chunk.file_path ?? chunk.filename ?? '';

/** The title of the document `chunk` belongs to, read from every chunk of that document in `chunks`. */
export function documentTitle(chunk: Chunk, chunks: readonly Chunk[]): string {
  const id = documentIdOf(chunk);
  for (const other of chunks) {
    if (documentIdOf(other) !== id) continue;
    const heading = H1.exec(other.text ?? '')?.[1]?.trim();
    if (heading) return heading;
  }
  return fileStem(chunk.filename ?? id);
}
