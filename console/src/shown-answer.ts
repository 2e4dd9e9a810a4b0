import type { AnswerStreamMessage, StreamSource } from './api';

type FinalMessage = Extract<AnswerStreamMessage, { type: 'final' }>;

/**
 * What the live turn shows of an answer being written (issue 25 §2), folded from the progress stream's `answer`
 * events: the sources once the run starts writing, the text so far, why the text shown last was dropped, and the
 * run's recorded answer once it has settled.
 */
export type ShownAnswer = {
  sources: StreamSource[];
  text: string;
  /** The reason of the last `discard` (a retry, a re-ask, a repair): shown as "rewritten: …"; null when none. */
  rewritten: string | null;
  final: FinalMessage | null;
};

export const NOTHING_SHOWN: ShownAnswer = { sources: [], text: '', rewritten: null, final: null };

/**
 * The next state. `final` always shows the record's text: when `replaced` it differs from what was streamed (a lost
 * event, a repair, an answer refused by the answer check), and otherwise it is the same text.
 */
export function foldAnswer(shown: ShownAnswer, message: AnswerStreamMessage): ShownAnswer {
  switch (message.type) {
    case 'sources':
      return { ...shown, sources: message.sources };
    case 'delta':
      return { ...shown, text: shown.text + message.text };
    case 'discard':
      return { ...shown, text: '', rewritten: message.reason };
    case 'final':
      return { ...shown, text: message.text, final: message };
    default:
      // A kind of message this build does not know (a newer server): the answer shown so far stays as it is.
      return shown;
  }
}
