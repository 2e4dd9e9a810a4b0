import { z } from 'zod';
import { AnswerCitation, VerificationStatus } from './answer';

/*
 * Streaming answers (issue 25 §2, docs/design/streaming-evaluation.md). The writer's activity publishes what it
 * generates to a side channel outside Temporal (StreamEvent); listeners (the CLI, the HTTP API's SSE stream, the
 * console, MCP progress) get AnswerStreamMessages folded from those events and the run's own state: the sources once
 * the run starts writing, the text as it comes, a discard whenever what was shown is void, and the final answer from
 * the run's result — so what a listener ends with is always the record.
 */

/** One event of the side channel, in (generation, attempt, seq) order. */
export const StreamEvent = z.object({
  /** The answer generation the workflow named: the writer's call, a speculative draft, the repair. */
  generation: z.string(),
  /** The activity attempt that wrote it: a later attempt replaces an earlier one. */
  attempt: z.number().int().min(1),
  seq: z.number().int().min(0),
  /** delta: answer text; restart: what this attempt wrote so far is void (a re-ask, a rung change); end. */
  kind: z.enum(['delta', 'restart', 'end']),
  text: z.string(),
});
export type StreamEvent = z.infer<typeof StreamEvent>;

/** The evidence the answer cites as [n]: n is its place in the run's evidence. */
export const StreamSource = z.object({ n: z.number().int().min(1), filename: z.string().nullable(), page_number: z.number().nullable(), preview: z.string() });
export type StreamSource = z.infer<typeof StreamSource>;

export const AnswerStreamMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('sources'), sources: z.array(StreamSource) }),
  z.object({ type: z.literal('delta'), text: z.string() }),
  /** What was shown of the answer so far is void (a retry, a re-ask, a repair): clear it; text follows. */
  z.object({ type: z.literal('discard'), reason: z.string() }),
  /**
   * The run's answer, from its result: `text` is the record. `replaced`: it differs from the text streamed (a lost
   * event, a repair that verified worse, an answer refused by the answer check), so a listener shows this instead.
   */
  z.object({
    type: z.literal('final'),
    text: z.string(),
    citations: z.array(AnswerCitation),
    verification: VerificationStatus,
    replaced: z.boolean(),
  }),
]);
export type AnswerStreamMessage = z.infer<typeof AnswerStreamMessage>;
