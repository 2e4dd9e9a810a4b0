/**
 * The one list of file types ingestion reads, and the reason a file of another type is refused (issue 45 §3): the
 * CLI refuses such a file before a batch starts with this reason, and the ingest activity fails it with the same.
 */
import { SUPPORTED_EXTENSIONS, extensionOf, unsupportedFileReason } from '../../../core/ingest/supported-files';

test('the supported types are the loaders’ own: Markdown, text, HTML, PDF and Word (.docx)', () => {
  expect([...SUPPORTED_EXTENSIONS].sort()).toEqual(['.docx', '.htm', '.html', '.markdown', '.md', '.pdf', '.txt']);
});

test('a supported type, in any case, has no reason to be refused', () => {
  for (const name of ['notes.md', 'Manual.PDF', 'a/b.c/page.html', 'x.tar.docx', 'C:\\docs\\readme.txt']) expect([name, unsupportedFileReason(name)]).toEqual([name, null]);
});

test('issue 45 §3 an unsupported type: the reason names it and lists the supported types', () => {
  expect(unsupportedFileReason('foo.bin')).toMatchInlineSnapshot(`"unsupported file type ".bin"; supported: .docx, .htm, .html, .markdown, .md, .pdf, .txt"`);
  expect(unsupportedFileReason('report.doc')).toBe('legacy .doc (binary Word) is not supported; save it as .docx; supported: .docx, .htm, .html, .markdown, .md, .pdf, .txt');
  expect(unsupportedFileReason('README')).toMatch(/^the file has no extension, so its type is unknown; supported: /);
  // A dot in a folder's name is no extension of the file; a leading dot (.bashrc) is none either.
  expect(unsupportedFileReason('docs.v2/README')).toMatch(/^the file has no extension/);
  expect(unsupportedFileReason('.bashrc')).toMatch(/^the file has no extension/);
});

test('a caller’s own list of types (the loaders an activity was given)', () => {
  expect(unsupportedFileReason('a.pdf', ['.md'])).toBe('unsupported file type ".pdf"; supported: .md');
  expect(unsupportedFileReason('a.md', ['.md'])).toBeNull();
});

test('extensionOf: lower case, dot included, of the last part of a path', () => {
  expect(['A.Tar.PDF', 'dir.d/file', '/x/y.MD', 'noext', '.hidden'].map(extensionOf)).toEqual(['.pdf', '', '.md', '', '']);
});
