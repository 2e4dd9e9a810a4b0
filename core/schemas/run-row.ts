import { z } from 'zod';
import { HitlRequest } from './run-io';

/*
 * One run in a list of runs (`ragtime runs`, GET /api/runs, the console's run list), from Temporal visibility: the
 * search attributes (never encrypted, so every run lists), the memo where this reader can decode it, and for a run
 * waiting for a person its pending question, asked of the run itself.
 */
export const RunRow = z.object({
  workflowId: z.string(),
  /** ISO time the run started (kept beside `startedAt` for readers of the first list format). */
  started: z.string(),
  startedAt: z.string().describe('ISO time the run started'),
  closedAt: z.string().nullable().describe('ISO time the run closed; null while it runs or waits'),
  durationMs: z.number().min(0).nullable().describe('closedAt − startedAt; null while open'),
  session: z.string().nullable(),
  /** RagStatus (running, awaiting_input, completed, failed), or how Temporal closed the run from outside. */
  status: z.string().nullable(),
  route: z.string().nullable(),
  complexity: z.string().nullable(),
  rounds: z.number().int().nullable(),
  /** The knowledge base (RagKb); null for runs that name none (the worker's default). */
  kb: z.string().nullable(),
  /** The question from the memo, shortened to 120 characters; null when the memo is sealed with another key. */
  question: z.string().nullable(),
  /** The route in brief from the search attributes, e.g. ["simple", "1 clarification", "answer"]. */
  path: z.array(z.string()),
  /** The question a waiting run asks (status awaiting_input, when asked for); else null. */
  hitl: HitlRequest.nullable(),
});
export type RunRow = z.infer<typeof RunRow>;
