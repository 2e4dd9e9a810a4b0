import { renderRunRows } from '../../../cli/render/run-rows';
import type { RunRow } from '../../../core/schemas/run-row';

const row = (over: Partial<RunRow>): RunRow => ({
  workflowId: 'rag-s1-aaaa', started: '2026-12-04T03:00:00.000Z', startedAt: '2026-12-04T03:00:00.000Z', closedAt: null, durationMs: null,
  session: 's1', status: 'completed', route: 'answer', complexity: 'simple', rounds: 0, kb: null, question: null, path: [], hitl: null, ...over,
});

// Issue 33 §6: `ragtime runs` printed its rows without saying what the columns are.
test('ragtime runs: a header, then a row per run, the columns aligned to their widest cell', () => {
  const text = renderRunRows([row({}), row({ workflowId: 'rag-a-long-session-bbbb', session: 'a-long-session', status: 'awaiting_input', route: 'clarify' })]);
  expect(text.split('\n')).toEqual([
    'STARTED                   STATUS          ROUTE    SESSION         RUN',
    '2026-12-04T03:00:00.000Z  completed       answer   s1              rag-s1-aaaa',
    '2026-12-04T03:00:00.000Z  awaiting_input  clarify  a-long-session  rag-a-long-session-bbbb',
  ]);
});
