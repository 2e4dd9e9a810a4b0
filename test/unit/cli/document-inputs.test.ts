/**
 * `ragtime ingest`'s arguments (cli/document-ids.ts), before anything starts: a missing path and a file named
 * outright whose type no loader reads are both refused, exit 2 (issue 45 §3: `ragtime ingest foo.bin` used to start
 * a batch and exit 1); a folder's other files are left out as before. No services: a folder of its own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isRagError } from '../../../core/errors';
import { reportError } from '../../../cli/errors';
import { documentInputs } from '../../../cli/document-ids';

const cwd = mkdtempSync(path.join(os.tmpdir(), 'ragtime-document-inputs-'));
beforeAll(() => {
  mkdirSync(path.join(cwd, 'folder'));
  for (const file of ['notes.md', 'foo.bin', 'folder/a.txt', 'folder/b.bin', 'folder/c.PDF']) writeFileSync(path.join(cwd, file), 'x');
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** The error documentInputs throws for these inputs, as `ragtime: CODE: message` and the exit code the CLI gives. */
function refusal(inputs: string[]): { line: string; exit: number } {
  try {
    documentInputs(inputs, { cwd });
  } catch (error) {
    if (!isRagError(error)) throw error;
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const exit = reportError(error, false);
    const line = String(errors.mock.calls[0]?.[0]);
    errors.mockRestore();
    return { line, exit };
  }
  throw new Error(`${inputs.join(' ')} was accepted`);
}

test('a missing file: exit 2, named', () => {
  expect(refusal(['notes.md', 'nope.md'])).toEqual({ line: 'ragtime: INVALID_INPUT: nope.md: no such file or directory', exit: 2 });
});

test('issue 45 §3 a file named outright of a type no loader reads: exit 2, the file and the supported types named', () => {
  expect(refusal(['notes.md', 'foo.bin'])).toEqual({
    line: 'ragtime: UNSUPPORTED_FILE: foo.bin: unsupported file type ".bin"; supported: .docx, .htm, .html, .markdown, .md, .pdf, .txt',
    exit: 2,
  });
});

test('a folder: its supported files (any case), its others left out as before', () => {
  expect(documentInputs(['folder', 'notes.md'], { cwd })).toEqual([
    { file: path.join(cwd, 'folder/a.txt'), id: 'folder/a.txt' },
    { file: path.join(cwd, 'folder/c.PDF'), id: 'folder/c.PDF' },
    { file: path.join(cwd, 'notes.md'), id: 'notes.md' },
  ]);
});
