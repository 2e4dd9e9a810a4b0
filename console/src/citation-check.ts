/*
 * An answer's check in the words a person reads (issue 33 §6, issue 43 §4): the CLI's and MCP's words, from
 * core/answer/citation-check-text.ts (it imports types only, so the bundle takes it whole). It is about the quotes,
 * not about whether the answer is right, so the grade's confidence is shown beside it; an answer that is not
 * verified says why (verificationReason).
 */
export { CITATION_CHECK_LABEL, VERIFIED_NOTE as CITATION_CHECK_TITLE, verificationReason } from '../../core/answer/citation-check-text';
