import { z } from 'zod';

/*
 * What an answer writer tells a listener while its model call runs (issue 25 §2): the answer's text as it is
 * generated (`delta`), and `restart` before each new request inside the same call (a re-ask, a step down the ladder,
 * a dropped temperature), so whatever was shown is discarded. Advisory only: the validated reply is the record
 * (docs/design/streaming-evaluation.md §5), and a listener that missed a delta shows the settled answer instead.
 */
export const AnswerTextEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('delta'), text: z.string() }),
  z.object({ kind: z.literal('restart'), reason: z.string() }),
]);
export type AnswerTextEvent = z.infer<typeof AnswerTextEvent>;

/** Receives a call's answer text events; it must not throw (a listener's failure is not the model call's). */
export type AnswerTextListener = (event: AnswerTextEvent) => void;
