import type { AnswerDraft, AnswerVerification, InvalidCitation } from '../schemas/answer';
import { hasContent, markersOf, splitSentences, CITATION_MARKER } from './sentences';

/*
 * The answer's verifier (DESIGN §3.6, after NexaRAG's VerificationNode): pure, run after every generation. A
 * citation holds when its marker is in the list, its document exists and its quote occurs in that document; an
 * answer is verified when every citation holds and every sentence carries at least one that does.
 */

// CJK punctuation that NFKC leaves alone, mapped to the ASCII a writer may use instead (and back).
const PUNCTUATION: Readonly<Record<string, string>> = {
  '。': '.', '、': ',', '“': '"', '”': '"', '„': '"', '〝': '"', '〞': '"', '「': '"', '」': '"', '『': '"', '』': '"',
  '‘': "'", '’': "'", '【': '[', '】': ']', '《': '<', '》': '>', '〈': '<', '〉': '>', '—': '-', '–': '-', '…': '...',
};
const PUNCTUATION_PATTERN = new RegExp(`[${Object.keys(PUNCTUATION).join('')}]`, 'g');

/**
 * The form in which a quote is looked up in its document: NFKC (full-width letters, digits and punctuation become
 * half-width), CJK punctuation mapped to ASCII, lower case, no white space at all.
 */
export function normalizeForMatch(text: string): string {
  return text
    .normalize('NFKC')
    .replace(PUNCTUATION_PATTERN, (char) => PUNCTUATION[char] as string)
    .toLowerCase()
    .replace(/\s+/g, '');
}

/** True when `quote` occurs in `document` up to white space, width and punctuation form. */
export function quoteOccursIn(quote: string, document: string): boolean {
  const needle = normalizeForMatch(quote);
  return needle !== '' && normalizeForMatch(document).includes(needle);
}

/** Checks a draft against the evidence it was written from (`documents[i]` is the text of document i + 1). */
export function verifyAnswer(draft: AnswerDraft, documents: readonly string[]): AnswerVerification {
  const invalid: InvalidCitation[] = [];
  const validMarkers = new Set<number>();
  const listed = new Set<number>();
  for (const citation of draft.citations) {
    listed.add(citation.marker);
    const document = documents[citation.doc_index - 1];
    const reason =
      document === undefined ? 'unknown_document' : normalizeForMatch(citation.quote) === '' ? 'empty_quote' : quoteOccursIn(citation.quote, document) ? null : 'quote_not_found';
    if (reason === null) validMarkers.add(citation.marker);
    else invalid.push({ marker: citation.marker, doc_index: citation.doc_index, reason });
  }
  const usedMarkers = [...new Set([...draft.answer.matchAll(CITATION_MARKER)].map((match) => Number(match[1])))];
  for (const marker of usedMarkers) {
    if (!listed.has(marker)) invalid.push({ marker, doc_index: null, reason: 'missing_citation' });
  }
  // A marker listed twice holds when one of its entries does; then its failing entries are not errors.
  const reported = invalid.filter((entry) => !validMarkers.has(entry.marker));
  const sentences = splitSentences(draft.answer).filter(hasContent);
  const uncited = sentences.filter((sentence) => !markersOf(sentence).some((marker) => validMarkers.has(marker)));
  const supported = sentences.length - uncited.length;
  const status = reported.length === 0 && uncited.length === 0 && supported > 0 ? 'verified' : supported > 0 ? 'partially_verified' : 'unverified';
  return { status, invalid_citations: reported, uncited_sentences: uncited };
}
