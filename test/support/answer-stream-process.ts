import { createAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import type { StreamEvent } from '../../core/schemas/answer-stream';

/*
 * A process that opens the answer stream store of a SQLite file (argv[2]) and, told over IPC, subscribes to a run
 * (`{ type: 'subscribe', workflowId }`: the first process to need the file's push becomes its hub) or appends events
 * (`{ type: 'append', workflowId, events }`, answered `{ type: 'appended' }`). Answers `{ type: 'ready', pid }` once
 * open. For tests that kill the process holding the push (test/integration/answer-stream-local-push.test.ts).
 */

type Request = { type: 'subscribe'; workflowId: string } | { type: 'append'; workflowId: string; events: StreamEvent[] } | { type: 'stop' };

const store = createAnswerStreamStore({ sqliteFile: process.argv[2] ?? '' });
process.on('message', (request: Request) => {
  if (request.type === 'subscribe') {
    store.onAppend?.(request.workflowId, () => undefined);
    process.send?.({ type: 'subscribed' });
  } else if (request.type === 'append') {
    void store.append(request.workflowId, request.events, new Date().toISOString()).then(
      () => process.send?.({ type: 'appended' }),
      (error: unknown) => process.send?.({ type: 'failed', message: String(error) }),
    );
  } else {
    void store.close().then(() => process.disconnect?.());
  }
});
process.on('disconnect', () => void store.close());
void store.migrate().then(() => process.send?.({ type: 'ready', pid: process.pid }));
