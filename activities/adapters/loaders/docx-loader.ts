import type * as Mammoth from 'mammoth';
import { causeText, fileError, type DocumentLoader } from './loader';

/**
 * .docx through mammoth's raw-text extraction: one page, page 0, as the original's Docx2txtLoader (spec §6.11).
 * Both put a blank line after each paragraph. A file that is not a Word zip package is CORRUPT_FILE.
 */
export const docxLoader: DocumentLoader = async ({ bytes, filename }) => {
  let text: string;
  try {
    // Required on first use (with jszip): most ingest no Word files, and every worker would pay for loading it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mammoth = require('mammoth') as typeof Mammoth;
    const result = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    text = result.value;
  } catch (error) {
    throw fileError('CORRUPT_FILE', filename, `not a readable .docx (Word zip package): ${causeText(error)}`, error);
  }
  return { file_type: 'Word', pages: [{ page_number: 0, text }] };
};
