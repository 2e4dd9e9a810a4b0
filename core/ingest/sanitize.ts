import { pythonStrip } from '../python-text';
import type { DocumentPage, LoadedDocument } from './ingest-io';

/*
 * Text sanitation before splitting (spec §6.11), in the original's order: NFC first, then the removals. Removing a
 * character after NFC can leave a composable pair (e + U+200B + U+0301 → e + U+0301): the original does the same.
 */

/** spec §6.11: zero-width space/non-joiner/joiner, BOM, right-to-left mark, bidi embeddings and overrides. */
export const INVISIBLE_CHARACTERS = /[\u200B-\u200D\uFEFF\u200F\u202A-\u202E]/g;
/** spec §6.11: C0 controls except tab, LF and CR, and DEL. */
export const CONTROL_CHARACTERS = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/g;
/** spec §6.11: the BMP Private Use Area. */
export const PRIVATE_USE_CHARACTERS = /[\uE000-\uF8FF]/g;
// With the u flag a surrogate range matches only unpaired halves: a valid pair is one astral code point.
/** spec §6.11: lone surrogates (the original drops them by encoding to UTF-8 with errors="ignore"). */
export const LONE_SURROGATES = /[\uD800-\uDFFF]/gu;

/** `sanitize_text` of the original (spec §6.11). */
export function sanitizeText(text: string): string {
  if (text === '') return '';
  return text
    .normalize('NFC')
    .replace(INVISIBLE_CHARACTERS, '')
    .replace(CONTROL_CHARACTERS, '')
    .replace(PRIVATE_USE_CHARACTERS, '')
    .replace(LONE_SURROGATES, '');
}

/**
 * A loaded document as the splitter receives it: each page stripped (Python `str.strip`) and then sanitized, and
 * the metadata sanitized, in the original's order (`sanitize_text(page_content.strip())`).
 */
export function sanitizeDocument(document: LoadedDocument): LoadedDocument {
  return {
    filename: sanitizeText(document.filename),
    file_path: sanitizeText(document.file_path),
    file_type: sanitizeText(document.file_type),
    pages: document.pages.map((page): DocumentPage => ({ page_number: page.page_number, text: sanitizeText(pythonStrip(page.text)) })),
  };
}
