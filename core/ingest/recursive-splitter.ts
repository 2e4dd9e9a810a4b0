import { RagError } from '../errors';
import { pythonStrip } from '../python-text';

/*
 * A port of LangChain's Python RecursiveCharacterTextSplitter (langchain_text_splitters 1.1.3, character.py and
 * base.py) with the options the original uses: length = Python len() (code points), keep_separator=True (the
 * separator starts the piece after it), is_separator_regex=False (separators are literals), strip_whitespace=True.
 * Parity is pinned by test/unit/core/recursive-splitter.test.ts against outputs of the Python library.
 */

export type SplitterOptions = {
  chunkSize: number;
  chunkOverlap: number;
  /** In priority order; the last one is normally "" (split into single characters). */
  separators: readonly string[];
  /** Python's logger.warning in `_merge_splits`, for a chunk longer than chunkSize. */
  onWarning?: (message: string) => void;
};

/** Python's `len()` of a str: code points, so an astral character counts once (JS `.length` counts it twice). */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 1; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      const previous = text.charCodeAt(i - 1);
      if (previous >= 0xd800 && previous <= 0xdbff) length--;
    }
  }
  return length;
}

/** `TextSplitter.__init__`'s checks, with its messages. */
function checkOptions({ chunkSize, chunkOverlap }: SplitterOptions): void {
  if (chunkSize <= 0) throw new RagError('INVALID_CONFIG', `chunk_size must be > 0, got ${chunkSize}`);
  if (chunkOverlap < 0) throw new RagError('INVALID_CONFIG', `chunk_overlap must be >= 0, got ${chunkOverlap}`);
  if (chunkOverlap > chunkSize) {
    throw new RagError('INVALID_CONFIG', `Got a larger chunk overlap (${chunkOverlap}) than chunk size (${chunkSize}), should be smaller.`);
  }
}

/**
 * `_split_text_with_regex` with a literal separator and keep_separator=True: Python's `re.split(f"({sep})")` keeps
 * the separators, and each one is glued to the start of the piece after it. Empty pieces are dropped.
 */
function splitKeepingSeparator(text: string, separator: string): string[] {
  if (separator === '') return Array.from(text); // list(text): one piece per code point
  const parts = text.split(separator);
  const pieces = [parts[0] ?? '', ...parts.slice(1).map((part) => separator + part)];
  return pieces.filter((piece) => piece !== '');
}

/** `_join_docs`: join, strip (Python whitespace), and drop an empty result. */
function joinDocs(docs: readonly string[], separator: string): string | null {
  const text = pythonStrip(docs.join(separator));
  return text === '' ? null : text;
}

/** `TextSplitter._merge_splits`: greedily packs pieces into chunks of at most chunkSize, carrying an overlap. */
export function mergeSplits(splits: readonly string[], separator: string, options: SplitterOptions): string[] {
  const { chunkSize, chunkOverlap } = options;
  const separatorLength = codePointLength(separator);
  const docs: string[] = [];
  const current: string[] = [];
  const currentLengths: number[] = [];
  let total = 0;
  for (const piece of splits) {
    const length = codePointLength(piece);
    if (total + length + (current.length > 0 ? separatorLength : 0) > chunkSize) {
      if (total > chunkSize) {
        options.onWarning?.(`Created a chunk of size ${total}, which is longer than the specified ${chunkSize}`);
      }
      if (current.length > 0) {
        const doc = joinDocs(current, separator);
        if (doc !== null) docs.push(doc);
        // Keep popping while the kept tail is longer than the overlap, or the next piece still does not fit.
        while (total > chunkOverlap || (total + length + (current.length > 0 ? separatorLength : 0) > chunkSize && total > 0)) {
          total -= (currentLengths[0] ?? 0) + (current.length > 1 ? separatorLength : 0);
          current.shift();
          currentLengths.shift();
        }
      }
    }
    current.push(piece);
    currentLengths.push(length);
    total += length + (current.length > 1 ? separatorLength : 0);
  }
  const doc = joinDocs(current, separator);
  if (doc !== null) docs.push(doc);
  return docs;
}

/** `RecursiveCharacterTextSplitter._split_text`. */
function splitRecursively(text: string, separators: readonly string[], options: SplitterOptions): string[] {
  const finalChunks: string[] = [];
  // The first separator present in the text; "" always matches and ends the search.
  let separator = separators[separators.length - 1] ?? '';
  let newSeparators: readonly string[] = [];
  for (let i = 0; i < separators.length; i++) {
    const candidate = separators[i] ?? '';
    if (candidate === '') {
      separator = candidate;
      break;
    }
    if (text.includes(candidate)) {
      separator = candidate;
      newSeparators = separators.slice(i + 1);
      break;
    }
  }
  const splits = splitKeepingSeparator(text, separator);
  // keep_separator=True: the separators are inside the pieces, so pieces are merged with "".
  let goodSplits: string[] = [];
  for (const piece of splits) {
    if (codePointLength(piece) < options.chunkSize) {
      goodSplits.push(piece);
      continue;
    }
    if (goodSplits.length > 0) {
      finalChunks.push(...mergeSplits(goodSplits, '', options));
      goodSplits = [];
    }
    if (newSeparators.length === 0) finalChunks.push(piece);
    else finalChunks.push(...splitRecursively(piece, newSeparators, options));
  }
  if (goodSplits.length > 0) finalChunks.push(...mergeSplits(goodSplits, '', options));
  return finalChunks;
}

/** `RecursiveCharacterTextSplitter(...).split_text(text)`. */
export function splitText(text: string, options: SplitterOptions): string[] {
  checkOptions(options);
  return splitRecursively(text, options.separators, options);
}
