import { decodeText, fileError, type DocumentLoader, type LoaderInput } from './loader';

/*
 * Flat text files. The original (spec §6.11) has no loader for them; like its .docx loader, the whole file is one
 * page, page 0. Markdown is kept as written: it already is the "markdown-like" text the HTML loader produces.
 */

function readText({ bytes, filename }: LoaderInput, kind: string): string {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  // NUL bytes outside UTF-16 mean a binary file with a text extension; GB18030 would turn it into mojibake.
  if (!utf16 && bytes.includes(0)) {
    throw fileError('CORRUPT_FILE', filename, `not a ${kind} file: it contains NUL bytes (binary data); check the file or its extension`);
  }
  return decodeText(bytes);
}

export const markdownLoader: DocumentLoader = async (input) => ({
  file_type: 'Markdown',
  pages: [{ page_number: 0, text: readText(input, 'Markdown') }],
});

export const textLoader: DocumentLoader = async (input) => ({
  file_type: 'Text',
  pages: [{ page_number: 0, text: readText(input, 'text') }],
});
