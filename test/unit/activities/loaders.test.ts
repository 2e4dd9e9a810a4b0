import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isRagError } from '../../../core/errors';
import { DEFAULT_LOADERS, extensionOf, loaderFor } from '../../../activities/adapters/loaders';
import { htmlSections, parseHtml } from '../../../activities/adapters/loaders/html-loader';
import { decodeText } from '../../../activities/adapters/loaders/loader';

const DOCS = path.join(__dirname, '../../fixtures/docs');

// The HTML expectations were checked against the original's html_processor.py functions run under BeautifulSoup 4
// (html.parser) in CPython 3.11, except where a test names the deliberate difference (page chrome).

async function load(name: string, onPage?: (done: number, total: number) => void) {
  const bytes = new Uint8Array(readFileSync(path.join(DOCS, name)));
  return loaderFor(name)({ bytes, filename: name, onPage });
}

async function failure(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (error) {
    if (isRagError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a RagError');
}

describe('loaders (spec §6.11)', () => {
  test('.md and .txt: one page, page 0, the text as written', async () => {
    expect(await load('guide.md')).toEqual({ file_type: 'Markdown', pages: [{ page_number: 0, text: readFileSync(path.join(DOCS, 'guide.md'), 'utf8') }] });
    expect(await load('plain.txt')).toEqual({ file_type: 'Text', pages: [{ page_number: 0, text: 'Plain text notes.\n\n第二段：纯文本文件只有一页，页码为 0。\n' }] });
  });

  test('.pdf: one page per PDF page, numbered from 0 like PyPDF, with progress per page', async () => {
    const progress: string[] = [];
    const loaded = await load('two-pages.pdf', (done, total) => progress.push(`${done}/${total}`));
    expect(loaded).toEqual({
      file_type: 'PDF',
      pages: [
        { page_number: 0, text: 'Page one: Temporal workflows are durable.\nThey survive worker restarts.' },
        { page_number: 1, text: 'Page two: Milvus stores leaf chunks.\nBM25 and dense legs are fused.' },
      ],
    });
    expect(progress).toEqual(['1/2', '2/2']);
  });

  test('.docx: one page, page 0, a blank line after each paragraph', async () => {
    expect(await load('notes.docx')).toEqual({
      file_type: 'Word',
      pages: [{ page_number: 0, text: 'Ingestion notes\n\nWord documents are loaded as one page, page 0.\n\n检索增强生成把文档切成三层块。\n\n' }],
    });
  });

  test('.html: noise dropped, blocks linearized, one page per "## " section from 1, prefixed with its title', async () => {
    expect(await load('two-sections.html')).toEqual({
      file_type: 'HTML',
      pages: [
        { page_number: 1, text: '[章节: Ragtime handbook]\n\n# Ragtime handbook\n\nAn introduction to durable retrieval.' },
        { page_number: 2, text: '[章节: Workflows]\n\n## Workflows\n\nWorkflows run on Temporal. They survive restarts.\nDurable\nObservable' },
        { page_number: 3, text: '[章节: 检索]\n\n## 检索\n\nMilvus 保存叶子块，BM25 与向量检索融合。' },
      ],
    });
  });

  test('.html with one section: prefixed with the page title, which also heads text that has no heading', () => {
    const html = '<html><head><title> Notes </title></head><body><nav>menu</nav><p>Only one paragraph of text here.</p></body></html>';
    expect(parseHtml(html)).toEqual([{ page_number: 1, text: '[Notes]\n\n# Notes\n\nOnly one paragraph of text here.' }]);
  });

  test('.html whose blocks miss most of the text falls back to the plain text, one string per line', () => {
    const html = `<body><div>${'loose text outside any block element '.repeat(10)}</div><p>tiny</p></body>`;
    expect(parseHtml(html)).toEqual([{ page_number: 1, text: `${'loose text outside any block element '.repeat(10).trim()}\ntiny` }]);
  });

  test('.html without <body>: the whole document is the root, as with html.parser (the title text is read too)', () => {
    const html = '<title>T</title><p>para one</p><h2>X</h2><p>x body</p><h2>Y</h2><ul><li><p>nested</p></li></ul>';
    expect(parseHtml(html)).toEqual([{ page_number: 1, text: '[T]\n\n# T\n\nT\npara one\nX\nx body\nY\nnested' }]);
  });

  test('.html nested blocks are read twice (li and its p), as in the original', () => {
    const html = `<body><h2>A</h2><ul><li><p>nested para long enough</p></li></ul><h2>B</h2><p>b text</p>${'<p>filler paragraph text</p>'.repeat(8)}</body>`;
    const pages = parseHtml(html);
    expect(pages.map((p) => p.page_number)).toEqual([1, 2]);
    expect(pages[0]?.text).toBe('[章节: A]\n\n## A\n\nnested para long enough\nnested para long enough');
  });

  test('.html page chrome is dropped (a difference from the original): nav and aside, header and footer outside main/article', () => {
    const html = '<body><header>Site</header><nav>Menu</nav><article><header><h1>Post</h1></header><p>Body text.</p><footer>by A</footer></article><aside>Ads</aside><footer>(c)</footer></body>';
    expect(parseHtml(html)).toEqual([{ page_number: 1, text: 'Post\nBody text.\nby A' }]);
  });

  test('html sections: a "## " line needs a title; the first block may take its "# " title', () => {
    expect(htmlSections('intro\n## \n## A\nbody a\n## B', '')).toEqual([
      { page_number: 1, text: 'intro\n##' },
      { page_number: 2, text: '[章节: A]\n\n## A\nbody a' },
      { page_number: 3, text: '[章节: B]\n\n## B' },
    ]);
    expect(htmlSections('   ', 'T')).toEqual([]);
  });

  test('text decoding: UTF-8 BOM, declared charset, UTF-8, then GB18030', () => {
    const gbk = new Uint8Array([0xc4, 0xe3, 0xba, 0xc3]); // 你好 in GBK
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('A');
    expect(decodeText(gbk, 'gbk')).toBe('你好');
    expect(decodeText(gbk)).toBe('你好');
    expect(decodeText(new TextEncoder().encode('你好'), 'no-such-charset')).toBe('你好');
  });

  test('an unsupported extension is UNSUPPORTED_FILE naming the file and the supported types', async () => {
    expect(await failure(() => load('notes.rtf'))).toEqual({
      code: 'UNSUPPORTED_FILE',
      message: 'notes.rtf: unsupported file type ".rtf"; supported: .docx, .htm, .html, .markdown, .md, .pdf, .txt',
    });
    expect((await failure(async () => loaderFor('old.DOC'))).message).toMatch(/^old\.DOC: legacy \.doc .* save it as \.docx;/);
    expect((await failure(async () => loaderFor('README'))).message).toMatch(/^README: the file has no extension/);
    expect(extensionOf('A.Tar.PDF')).toBe('.pdf');
    expect(Object.keys(DEFAULT_LOADERS)).toContain('.htm');
  });

  test('a .pdf that is not a PDF is CORRUPT_FILE naming the file and the parser\'s reason', async () => {
    expect(await failure(() => load('corrupt.pdf'))).toEqual({ code: 'CORRUPT_FILE', message: 'corrupt.pdf: not a readable PDF: InvalidPDFException: Invalid PDF structure.' });
  });

  test('a .docx that is not a zip package is CORRUPT_FILE', async () => {
    const { code, message } = await failure(() => load('corrupt.docx'));
    expect(code).toBe('CORRUPT_FILE');
    expect(message).toMatch(/^corrupt\.docx: not a readable \.docx \(Word zip package\): /);
  });

  test('a binary file named .txt is CORRUPT_FILE', async () => {
    const bytes = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41]);
    expect(await failure(() => loaderFor('data.txt')({ bytes, filename: 'data.txt' }))).toEqual({
      code: 'CORRUPT_FILE',
      message: 'data.txt: not a text file: it contains NUL bytes (binary data); check the file or its extension',
    });
  });

  test('PDF parsing stops when the activity is cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const bytes = new Uint8Array(readFileSync(path.join(DOCS, 'two-pages.pdf')));
    await expect(DEFAULT_LOADERS['.pdf']!({ bytes, filename: 'two-pages.pdf', signal: controller.signal })).rejects.toThrow('cancelled');
  });
});
