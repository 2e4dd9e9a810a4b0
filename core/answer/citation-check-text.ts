import type { VerificationStatus } from '../schemas/answer';

/*
 * What an answer's verification means, in the words a person reads (issue 33 §6): "verified" is about the quotes —
 * each cited span is found in its source — not about whether the answer is right. The grade's confidence (the
 * evidence grader's, trace field evidence_confidence) is shown beside it, as the closest thing to the latter.
 * console/src/citation-check.ts says the same (the console imports no core values).
 */

export const CITATION_CHECK_LABEL: Record<VerificationStatus, string> = {
  verified: 'citations verified',
  partially_verified: 'citations partly verified',
  unverified: 'citations not verified',
};

const NOTE: Record<VerificationStatus, string> = {
  verified: 'every quote matches its source; this does not prove the answer right',
  partially_verified: 'some sentences or quotes could not be matched to the sources',
  unverified: 'the quotes could not be matched to the sources',
};

/** "grade confidence 0.80", or null when the run has no grade. */
export function gradeConfidenceText(confidence: number | null | undefined): string | null {
  return typeof confidence === 'number' && Number.isFinite(confidence) ? `grade confidence ${confidence.toFixed(2)}` : null;
}

/** One line: "citations verified (every quote matches its source; …) · grade confidence 1.00". */
export function citationCheckText(status: VerificationStatus, confidence: number | null | undefined): string {
  const grade = gradeConfidenceText(confidence);
  return `${CITATION_CHECK_LABEL[status]} (${NOTE[status]})${grade ? ` · ${grade}` : ''}`;
}
