import type { AnswerCheckAction, AnswerDraft, AnswerVerification, InvalidCitation } from '../schemas/answer';
import { checkAnswer } from './answer-check';
import { hasContent, markersOf, splitSentences, CITATION_MARKER } from './sentences';

/*
 * The answer's verifier (DESIGN §3.6, after NexaRAG's VerificationNode): pure, run after every generation. A
 * citation holds when its marker is in the list, its document exists and its quote occurs in that document; an
 * answer is verified when every citation holds and every sentence carries at least one that does. Given `check`, the
 * answer check (answer-check.ts) runs on the quotes that hold; it never changes `status`, so the repair rule
 * (workflows/answer-node.ts) is what it was.
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

/** The answer check's inputs: the question the answer is for, and ANSWER_CHECK_ACTION. */
export type AnswerCheckOptions = { question: string; action: AnswerCheckAction };

/**
 * Checks a draft against the evidence it was written from (`documents[i]` is the text of document i + 1); with
 * `check`, also its numbers and claims against the quotes that hold.
 */
export function verifyAnswer(draft: AnswerDraft, documents: readonly string[], check?: AnswerCheckOptions): AnswerVerification {
  const invalid: InvalidCitation[] = [];
  const held: { marker: number; quote: string }[] = [];
  const validMarkers = new Set<number>();
  const listed = new Set<number>();
  for (const citation of draft.citations) {
    listed.add(citation.marker);
    const document = documents[citation.doc_index - 1];
    const reason =
      document === undefined ? 'unknown_document' : normalizeForMatch(citation.quote) === '' ? 'empty_quote' : quoteOccursIn(citation.quote, document) ? null : 'quote_not_found';
    if (reason === null) {
      validMarkers.add(citation.marker);
      held.push({ marker: citation.marker, quote: citation.quote });
    }
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
  const verification: AnswerVerification = { status, invalid_citations: reported, uncited_sentences: uncited };
  const findings = check === undefined ? null : checkAnswer(draft.answer, held, check.question, check.action);
  return findings === null ? verification : { ...verification, ...findings };
}
