import type * as Cheerio from 'cheerio';
import type { DocumentPage } from '../../../core/ingest/ingest-io';
import { PY_WHITESPACE_CLASS, pythonStrip } from '../../../core/python-text';
import { codePointLength } from '../../../core/ingest/recursive-splitter';
import { decodeText, type DocumentLoader } from './loader';

/*
 * HTML (spec §6.11), ported from the original's html_processor.py (BeautifulSoup): decode, drop noise, pick the
 * main content, linearize block elements into markdown-like text, and cut it into sections before each "## "
 * heading; section i (from 1) is page i. One deliberate difference: page chrome (nav, aside, and header/footer
 * outside main/article) is dropped too, which the original keeps when it falls back to <body>.
 */

/** The original's `_strip_noise` tags. */
const NOISE = 'script, style, noscript, template, iframe, svg';
const CHROME = 'nav, aside';
const PAGE_CHROME = 'header, footer';
/** `_linearize_blocks`: the block elements read in document order, at most 8000 of them. */
const BLOCKS = 'h1, h2, h3, h4, p, li, blockquote, pre, td, th, dd, dt, figcaption';
const MAX_BLOCKS = 8000;
const HEADING_MARKS: Readonly<Record<string, string>> = { h1: '#', h2: '##', h3: '###', h4: '####' };
/** The charset declaration `_read_html_text` looks for in the first 8 KB. */
const CHARSET = /charset\s*=\s*["']?([^"'>\s]+)/i;
const PY_LEADING_SPACE = new RegExp(`^[${PY_WHITESPACE_CLASS}]+`);

type DomNode = { type: string; data?: string; children?: DomNode[] };

/** BeautifulSoup's `get_text(separator, strip=True)`: every text node stripped, empty ones dropped, joined. */
function textOf(node: DomNode, separator: string): string {
  const strings: string[] = [];
  const walk = (current: DomNode): void => {
    if (current.type === 'text') {
      const text = pythonStrip(current.data ?? '');
      if (text !== '') strings.push(text);
    }
    for (const child of current.children ?? []) walk(child);
  };
  walk(node);
  return strings.join(separator);
}

/** `_linearize_blocks`: headings as "#"…"####" lines; the plain text instead when the blocks miss most of it. */
function linearize($: Cheerio.CheerioAPI, root: DomNode): string {
  const parts: string[] = [];
  $(root as never)
    .find(BLOCKS)
    .slice(0, MAX_BLOCKS)
    .each((_, element) => {
      const text = textOf(element as DomNode, ' ');
      if (text === '') return;
      const mark = HEADING_MARKS[element.tagName.toLowerCase()];
      parts.push(mark ? `\n${mark} ${text}\n` : text);
    });
  const structured = pythonStrip(parts.join('\n'));
  const plain = textOf(root, '\n');
  if (plain === '') return structured;
  if (structured === '') return plain;
  const plainLength = codePointLength(plain);
  return codePointLength(structured) < Math.max(120, Math.floor(0.22 * plainLength)) ? plain : structured;
}

/** `_doc_title`: the first <title>, when it holds exactly one string. */
function pageTitle($: Cheerio.CheerioAPI): string {
  const children = ($('title').first()[0] as DomNode | undefined)?.children ?? [];
  const only = children.length === 1 ? children[0] : undefined;
  return only?.type === 'text' ? pythonStrip(only.data ?? '') : '';
}

/** `re.split(r"(?m)^(?=## .+$)", text)`: cut before every line that is "## " plus at least one character. */
function cutBeforeLevel2Headings(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    if (lineStart > start && text.startsWith('## ', lineStart) && lineEnd - lineStart > 3) {
      pieces.push(text.slice(start, lineStart));
      start = lineStart;
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** `_split_into_sections`: one page per "## " section, each prefixed with its title; one section gets the page title. */
export function htmlSections(linear: string, title: string): DocumentPage[] {
  const text = pythonStrip(linear);
  if (text === '') return [];
  const pieces = cutBeforeLevel2Headings(text).map(pythonStrip).filter((piece) => piece !== '');
  if (pieces.length <= 1) return [{ page_number: 1, text: (title ? `[${title}]\n\n` : '') + text }];
  return pieces.map((block, i) => {
    const firstLine = pythonStrip(block.split('\n', 1)[0] ?? '');
    let sectionTitle = '';
    if (firstLine.startsWith('## ')) sectionTitle = pythonStrip(firstLine.slice(3));
    else if (i === 0 && firstLine.startsWith('# ')) sectionTitle = pythonStrip(firstLine.slice(2));
    return { page_number: i + 1, text: (sectionTitle ? `[章节: ${sectionTitle}]\n\n` : '') + block };
  });
}

/** `parse_html_file_to_sections` over decoded HTML. */
export function parseHtml(html: string): DocumentPage[] {
  // Required on first use: cheerio (with undici) is ~150 ms of every worker's start, and most ingest no HTML.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const $ = (require('cheerio') as typeof Cheerio).load(html);
  $(NOISE).remove(); // comments need no removal: only text nodes are read
  $(CHROME).remove();
  $(PAGE_CHROME).filter((_, element) => $(element).closest('main, article').length === 0).remove();
  // BeautifulSoup's html.parser has no <body> unless the file has one; then the whole document is the root.
  const root = ($('main')[0] ?? $('article')[0] ?? (/<body[\s>]/i.test(html) ? $('body')[0] : $.root()[0])) as DomNode;
  $(root as never).find('br').replaceWith('\n');
  const title = pageTitle($);
  let linear = linearize($, root);
  if (title && linear && !linear.replace(PY_LEADING_SPACE, '').startsWith('#')) linear = `# ${title}\n\n${linear}`;
  return htmlSections(linear, title);
}

/** .html / .htm: decoded as the original does (BOM, declared charset, UTF-8, GB18030), then sectioned. */
export const htmlLoader: DocumentLoader = async ({ bytes }) => {
  const head = new TextDecoder('utf-8').decode(bytes.subarray(0, 8192));
  const html = decodeText(bytes, CHARSET.exec(head)?.[1]);
  return { file_type: 'HTML', pages: parseHtml(html) };
};
