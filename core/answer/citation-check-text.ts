import type { AnswerVerification, InvalidCitation, VerificationStatus } from '../schemas/answer';

/*
 * What an answer's verification means, in the words a person reads (issue 33 §6): "verified" is about the quotes —
 * each cited span is found in its source — not about whether the answer is right. The grade's confidence (the
 * evidence grader's, trace field evidence_confidence) is shown beside it, as the closest thing to the latter.
 * An answer that is not verified says why, from its verification (issue 43 §4): a sentence that cites no source is
 * not a quote that could not be matched. The CLI, the console (console/src/citation-check.ts re-exports these; the
 * file imports types only, so the browser bundle takes it whole) and MCP use the same words.
 */

export const CITATION_CHECK_LABEL: Record<VerificationStatus, string> = {
  verified: 'citations verified',
  partially_verified: 'citations partly verified',
  unverified: 'citations not verified',
};

/** What "verified" says, and what it does not. */
export const VERIFIED_NOTE = 'every quote matches its source; this does not prove the answer right';

/** The verification fields the reason is read from (an outcome's `answer.verification`). */
export type VerificationFaults = Pick<AnswerVerification, 'status' | 'invalid_citations' | 'uncited_sentences'>;

const markerList = (citations: readonly InvalidCitation[]): string => [...new Set(citations.map((citation) => `[${citation.marker}]`))].join(', ');

/** One phrase per kind of invalid citation, naming its markers. */
const INVALID: Record<InvalidCitation['reason'], (list: string, many: boolean) => string> = {
  quote_not_found: (list, many) => (many ? `the quotes of ${list} could not be matched to their sources` : `the quote of ${list} could not be matched to its source`),
  empty_quote: (list, many) => `${list} ${many ? 'quote' : 'quotes'} nothing`,
  unknown_document: (list, many) => `${list} ${many ? 'cite documents' : 'cites a document'} not in the evidence`,
  missing_citation: (list, many) => `the ${many ? 'markers' : 'marker'} ${list} ${many ? 'have' : 'has'} no citation in the list (invalid ${many ? 'markers' : 'marker'})`,
};

/**
 * Why the citations verify or not, from the verification itself: for a verified answer what that means; otherwise
 * each fault it has ("a sentence cites no source; the quote of [2] could not be matched to its source").
 */
export function verificationReason(verification: VerificationFaults): string {
  if (verification.status === 'verified') return VERIFIED_NOTE;
  const faults: string[] = [];
  const uncited = verification.uncited_sentences.length;
  if (uncited > 0) faults.push(uncited === 1 ? 'a sentence cites no source' : `${uncited} sentences cite no source`);
  for (const reason of Object.keys(INVALID) as InvalidCitation['reason'][]) {
    const citations = verification.invalid_citations.filter((citation) => citation.reason === reason);
    const list = markerList(citations);
    if (citations.length > 0) faults.push(INVALID[reason](list, list.includes(',')));
  }
  // Nothing invalid and nothing uncited, yet not verified: the answer has no sentence at all (an empty text).
  return faults.length > 0 ? faults.join('; ') : 'the answer has no sentence that cites a source';
}

/** "grade confidence 0.80", or null when the run has no grade. */
export function gradeConfidenceText(confidence: number | null | undefined): string | null {
  return typeof confidence === 'number' && Number.isFinite(confidence) ? `grade confidence ${confidence.toFixed(2)}` : null;
}

/** One line: "citations not verified (a sentence cites no source) · grade confidence 1.00". */
export function citationCheckText(verification: VerificationFaults, confidence: number | null | undefined): string {
  const grade = gradeConfidenceText(confidence);
  return `${CITATION_CHECK_LABEL[verification.status]} (${verificationReason(verification)})${grade ? ` · ${grade}` : ''}`;
}
