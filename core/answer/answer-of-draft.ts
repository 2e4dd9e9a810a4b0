import { ANSWER_PROMPT_VERSION, type AnswerDraft, type AnswerVerification, type RagAnswer } from '../schemas/answer';
import type { Chunk } from '../schemas/retrieved-chunk';

/** The text of each evidence document, as the verifier and the answerer read it (document i + 1 is `docs[i]`). */
export const documentTexts = (docs: readonly Chunk[]): string[] => docs.map((doc) => doc.text ?? '');

/**
 * The outcome's answer from a verified draft: its citations that name a document of the evidence, once per marker
 * and in marker order, with the cited chunk's id, file and page.
 */
export function answerOfDraft(
  draft: AnswerDraft,
  docs: readonly Chunk[],
  verification: AnswerVerification,
  record: { model: string; durationMs: number; repairAttempted: boolean },
): RagAnswer {
  const seen = new Set<number>();
  const citations = [...draft.citations]
    .sort((a, b) => a.marker - b.marker)
    .filter((citation) => docs[citation.doc_index - 1] !== undefined && !seen.has(citation.marker) && seen.add(citation.marker))
    .map((citation) => {
      const doc = docs[citation.doc_index - 1] as Chunk;
      return {
        marker: citation.marker,
        doc_index: citation.doc_index,
        chunk_id: doc.chunk_id ?? (doc.id === undefined ? null : String(doc.id)),
        filename: doc.filename ?? null,
        page_number: doc.page_number ?? null,
        quote: citation.quote,
      };
    });
  return {
    text: draft.answer.trim(),
    citations,
    verification,
    model: record.model,
    duration_ms: Math.max(0, Math.round(record.durationMs)),
    prompt_version: ANSWER_PROMPT_VERSION,
    repair_attempted: record.repairAttempted,
  };
}
