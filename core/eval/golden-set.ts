import { z } from 'zod';
import { FiltersInput } from '../retrieval/metadata-filter';
import { Route } from '../schemas/graph-values';

/*
 * A golden set (DESIGN §5 layer C): a folder holding the documents to ingest under docs/ and questions.jsonl, one
 * question a line. A gold document id is the document's path relative to docs/ ("/" separators), which is the id
 * `ragtime eval` ingests it under.
 */

export const GoldenQuestion = z.strictObject({
  id: z.string().trim().min(1, 'id is empty').max(200),
  question: z.string().trim().min(1, 'question is empty').max(2000),
  /** Whether the documents hold the answer: answerable questions should be answered, the others not. */
  answerable: z.boolean(),
  gold_doc_ids: z.array(z.string().min(1)).default([]),
  gold_answers: z.array(z.string().min(1)).default([]),
  /** The route the question must take, when it is about routing itself (clarify, scope_select…). */
  expected_route: Route.optional(),
  /**
   * A dialogue (issue 25 §3): the questions asked before this one in the same session, oldest first. The question is
   * then a follow-up ("它支持 WPA3 吗？"); `ragtime eval` asks the turns first, and also asks the question alone in a
   * session of its own, to report retrieval with the session's condensation against without it.
   */
  turns: z.array(z.string().trim().min(1).max(2000)).min(1).max(5).optional(),
  /** Metadata filters the question is asked with (issue 44 §2), as `ask --filter` and the API take them. */
  filters: FiltersInput.optional(),
});
export type GoldenQuestion = z.infer<typeof GoldenQuestion>;

/** The questions of a questions.jsonl, or the problems found (line numbers from 1; blank lines skipped). */
export function parseGoldenQuestions(text: string): { questions: GoldenQuestion[]; problems: string[] } {
  const questions: GoldenQuestion[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      problems.push(`line ${index + 1}: not JSON`);
      return;
    }
    const parsed = GoldenQuestion.safeParse(json);
    if (!parsed.success) {
      problems.push(`line ${index + 1}: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}`);
      return;
    }
    if (seen.has(parsed.data.id)) {
      problems.push(`line ${index + 1}: id ${JSON.stringify(parsed.data.id)} appears twice`);
      return;
    }
    if (parsed.data.answerable && parsed.data.gold_doc_ids.length === 0 && parsed.data.expected_route === undefined) {
      problems.push(`line ${index + 1}: an answerable question needs gold_doc_ids (or an expected_route)`);
      return;
    }
    seen.add(parsed.data.id);
    questions.push(parsed.data);
  });
  return { questions, problems };
}

/** The document id a chunk id names: "<doc id>::p<page>::l<level>::<n>" (document ids never hold "::"). */
export function documentOfChunk(chunkId: string): string {
  const at = chunkId.indexOf('::');
  return at < 0 ? chunkId : chunkId.slice(0, at);
}
