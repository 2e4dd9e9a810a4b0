import { Worker } from 'node:worker_threads';
import type { DocumentPage } from '../../../core/ingest/ingest-io';
import { fileError, type DocumentLoader } from './loader';

/*
 * .pdf through unpdf (PDF.js), one page per PDF page, numbered from 0 as PyPDF's metadata (spec §6.11, §12).
 * Parsing runs in a worker thread: PDF.js is CPU-bound and would starve the activity's heartbeats on a big file,
 * the thread can be terminated when the activity is cancelled, and unpdf loads its ES-module PDF.js build with a
 * dynamic import that works in a plain Node thread (jest's module sandbox refuses it).
 * Page text is joined the way unpdf's extractText joins it: items in order, a newline where PDF.js marks an EOL.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { getDocumentProxy } = require(workerData.unpdfPath);
  const pdf = await getDocumentProxy(workerData.bytes, { verbosity: 0 });
  try {
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const text = content.items.filter((item) => item.str != null).map((item) => item.str + (item.hasEOL ? '\\n' : '')).join('');
      page.cleanup();
      parentPort.postMessage({ kind: 'page', index: n - 1, total: pdf.numPages, text });
    }
    parentPort.postMessage({ kind: 'done', total: pdf.numPages });
  } finally {
    await pdf.destroy();
  }
})().catch((error) => parentPort.postMessage({ kind: 'error', name: String(error && error.name), message: String(error && error.message || error) }));
`;

type WorkerMessage =
  | { kind: 'page'; index: number; total: number; text: string }
  | { kind: 'done'; total: number }
  | { kind: 'error'; name: string; message: string };

export const pdfLoader: DocumentLoader = ({ bytes, filename, signal, onPage }) =>
  new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const pages: DocumentPage[] = [];
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { unpdfPath: require.resolve('unpdf'), bytes } });
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const onAbort = (): void => finish(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'page') {
        pages.push({ page_number: message.index, text: message.text });
        onPage?.(message.index + 1, message.total);
      } else if (message.kind === 'done') {
        finish(() => resolve({ file_type: 'PDF', pages }));
      } else {
        finish(() => reject(pdfError(filename, message)));
      }
    });
    worker.on('error', (error) => finish(() => reject(fileError('CORRUPT_FILE', filename, `the PDF parser failed: ${error.message}`, error))));
    worker.on('exit', (code) => finish(() => reject(fileError('CORRUPT_FILE', filename, `the PDF parser stopped (exit code ${code})`))));
  });

function pdfError(filename: string, { name, message }: { name: string; message: string }) {
  if (name === 'PasswordException') {
    return fileError('UNSUPPORTED_FILE', filename, `the PDF is password-protected (${message}); remove the password and ingest it again`);
  }
  return fileError('CORRUPT_FILE', filename, `not a readable PDF: ${name}: ${message}`);
}
