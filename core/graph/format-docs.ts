import { pythonStr } from '../python-text';
import type { Chunk } from '../schemas/retrieved-chunk';

/** spec §4.4.2: the separator between rendered chunks. */
export const DOC_SEPARATOR = '\n\n---\n\n';

/**
 * `_format_docs` (spec §4.4.2): the evidence text given to the grader. A missing filename renders "Unknown",
 * a missing page "N/A", missing text "" (a key present with null renders as Python would: "None").
 */
export function formatDocs(docs: readonly Chunk[]): string {
  return docs
    .map((doc, index) => {
      const record = doc as Record<string, unknown>;
      const filename = record.filename === undefined ? 'Unknown' : pythonStr(record.filename);
      const page = record.page_number === undefined ? 'N/A' : pythonStr(record.page_number);
      const text = record.text === undefined ? '' : pythonStr(record.text);
      return `[${index + 1}] ${filename} (Page ${page}):\n${text}`;
    })
    .join(DOC_SEPARATOR);
}
