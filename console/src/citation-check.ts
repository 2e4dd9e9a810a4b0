import type { RagOutcome } from './api';

type VerificationStatus = NonNullable<RagOutcome['answer']>['verification']['status'];

/**
 * An answer's check in the words a person reads (issue 33 §6; the CLI's core/answer/citation-check-text.ts): it is
 * about the quotes, not about whether the answer is right, so the grade's confidence is shown beside it.
 */
export const CITATION_CHECK_LABEL: Record<VerificationStatus, string> = {
  verified: 'citations verified',
  partially_verified: 'citations partly verified',
  unverified: 'citations not verified',
};

export const CITATION_CHECK_TITLE = 'each quote matches its source; this does not prove the answer right';
