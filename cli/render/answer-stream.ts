import type { AnswerStreamMessage } from '../../core/schemas/answer-stream';

/*
 * A streaming answer on a terminal (issue 25 §2): the sources once the run starts writing, the text as it comes, a
 * note where what was shown is void (a retry, a repair), and at the end whether the record differs from what was
 * shown. The outcome printed after it then leaves out the answer's text when the stream already showed it.
 */
export type StreamPrinter = {
  onMessage(message: AnswerStreamMessage): void;
  /** True when the text the terminal shows is the record's (the outcome need not print it again). */
  readonly showedRecord: boolean;
  /** A line of its own beside the answer (a progress step): ends the answer's line first when one is open. */
  line(text: string): void;
};

export function answerStreamPrinter(write: (text: string) => void): StreamPrinter {
  let writing = false;
  let showedRecord = false;
  const endLine = () => {
    if (writing) write('\n');
    writing = false;
  };
  return {
    get showedRecord() {
      return showedRecord;
    },
    line(text) {
      endLine();
      write(`${text}\n`);
    },
    onMessage(message) {
      switch (message.type) {
        case 'sources':
          write(`answering from ${message.sources.length} source(s):\n`);
          return;
        case 'delta':
          writing = true;
          write(message.text);
          return;
        case 'discard':
          endLine();
          write(`(discarded: ${message.reason})\n`);
          return;
        case 'final':
          endLine();
          showedRecord = !message.replaced;
          if (message.replaced) write('(the answer as recorded differs from the text above: it follows)\n');
          write('\n');
      }
    },
  };
}
