import { pushCollector, readAnswerStream } from '../../../client/read-answer-stream';
import { AnswerStreamView } from '../../../core/answer-stream/answer-stream-view';
import type { AnswerStreamMessage, StreamEvent } from '../../../core/schemas/answer-stream';

/*
 * Issue 36 §2: a PostgreSQL notification carries the events it announces, so a listener of the generation it shows
 * takes them without reading the store — when they continue where it stands. A push that skips events (one was
 * missed, or came without its events) sends the listener to the store, which has them all.
 */

const event = (attempt: number, seq: number, text: string, generation = 'g1'): StreamEvent => ({ generation, attempt, seq, kind: 'delta', text });

function shownView(): AnswerStreamView {
  const view = new AnswerStreamView();
  view.follow('g1', []);
  return view;
}

describe('AnswerStreamView.takeContinuing', () => {
  test('takes events that continue the cursor: the first of attempt 1, the next seq, a later attempt from seq 0', () => {
    const view = shownView();
    expect(view.takeContinuing([event(1, 0, '丹'), event(1, 1, '瑾')])).toEqual([{ type: 'delta', text: '丹' }, { type: 'delta', text: '瑾' }]);
    expect(view.takeContinuing([event(2, 0, '新')])?.map((message) => message.type)).toEqual(['discard', 'delta']);
  });

  test('refuses a gap (and changes nothing), skips what was already taken, ignores other generations', () => {
    const view = shownView();
    expect(view.takeContinuing([event(1, 1, '瑾')])).toBeNull();
    expect(view.reading?.after).toEqual({ attempt: 0, seq: -1 });
    expect(view.takeContinuing([event(1, 0, '丹'), event(1, 0, '丹'), event(1, 0, 'x', 'draft')])).toEqual([{ type: 'delta', text: '丹' }]);
    expect(view.takeContinuing([event(1, 0, '丹')])).toEqual([]);
  });
});

describe('readAnswerStream with pushed events', () => {
  const rag = { getAnswerStream: jest.fn(async () => ({ generation: 'g1', docs: [] })) };

  test('continuing events are shown without a query or a read; a gap reads the store', async () => {
    const stored = [event(1, 0, '丹'), event(1, 1, '瑾'), event(1, 2, '是')];
    const eventsOf = jest.fn(async (_id: string, _generation: string, after: { attempt: number; seq: number }) => stored.filter((e) => e.seq > after.seq));
    const reader = { eventsOf, onAppend: () => () => undefined };
    const view = shownView();
    const shown: AnswerStreamMessage[] = [];
    const pushes = pushCollector();

    pushes.push('g1', [stored[0]!]);
    await readAnswerStream(view, rag, 'w', reader, (messages) => shown.push(...messages), pushes.take());
    expect(eventsOf).not.toHaveBeenCalled();
    expect(rag.getAnswerStream).not.toHaveBeenCalled();

    // seq 1 was missed: the push of seq 2 does not continue, so the store is read from the cursor.
    pushes.push('g1', [stored[2]!]);
    await readAnswerStream(view, rag, 'w', reader, (messages) => shown.push(...messages), pushes.take());
    expect(eventsOf).toHaveBeenCalledTimes(1);
    expect(shown).toEqual(['丹', '瑾', '是'].map((text) => ({ type: 'delta', text })));
  });

  test('a push without its events (too long to carry) reads the store; pushes are collected until the read', () => {
    const pushes = pushCollector();
    pushes.push('g1', [event(1, 0, 'a')]);
    pushes.push('g1', [event(1, 1, 'b')]);
    expect(pushes.written).toBe('g1');
    expect(pushes.take()).toEqual({ written: 'g1', events: [event(1, 0, 'a'), event(1, 1, 'b')] });
    expect(pushes.written).toBeUndefined();
    pushes.push('g1', [event(1, 2, 'c')]);
    pushes.push('g1');
    expect(pushes.take()).toEqual({ written: 'g1', events: null });
    expect(pushes.take()).toEqual({ written: undefined, events: undefined });
  });
});
