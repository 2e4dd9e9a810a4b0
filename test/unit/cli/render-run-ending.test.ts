import { renderChatOutcome } from '../../../cli/chat/chat-outcome';
import { renderCancellation } from '../../../cli/render/cancellation';
import { renderOutcome } from '../../../cli/render/outcome';
import { closedOutcome } from '../../../core/run/run-closure';
import { shownStatus } from '../../../core/run/shown-status';
import type { RagOutcome } from '../../../core/schemas/run-io';

/* Ending a run (issue 43 §6): what `ragtime cancel` prints, and how a run closed from outside heads its outcome. */

const waiting = {
  workflowId: 'rag-s-1-0a1b2c3d',
  runId: 'r-1',
  sessionId: 's-1',
  kb: null,
  status: 'awaiting_input',
  route: 'clarify',
  retrieval_status: 'success',
  rag_trace: null,
  docs: [],
  hitl: { prompt: '请补充角色名', options: ['丹瑾', '丹恒'], round: 1 },
  hitl_resume_state: null,
  rounds: [],
  error: null,
  answer: null,
  answer_null_reason: 'pending',
  answer_error: null,
  degraded: null,
} as unknown as RagOutcome;

describe('a run closed from outside', () => {
  test('a terminated waiting run: failed with TERMINATED and the reason, no pending question, its route kept', () => {
    const outcome = closedOutcome(waiting, { how: 'terminated', reason: 'stuck' });
    expect(outcome).toMatchObject({ status: 'failed', route: 'clarify', hitl: null, answer_null_reason: 'run_failed', error: { type: 'TERMINATED' } });
    expect(outcome.error?.message).toMatchInlineSnapshot(
      `"the run was terminated before it finished (by Temporal: \`temporal workflow terminate\` or the Temporal UI): "stuck"; it takes no answers — ask again to start a new one"`,
    );
    expect(shownStatus(outcome)).toBe('terminated');
  });

  test('the outcome heads with CANCELLED and the reason, not FAILED; without a reason it says none', () => {
    const text = renderOutcome(closedOutcome(waiting, { how: 'cancelled', reason: 'asked twice' }), null);
    expect(text.split('\n')[0]).toBe('CANCELLED  route=clarify  status=success');
    expect(text).toContain('  error CANCELLED: the run was cancelled before it finished: "asked twice"; it takes no answers — ask again to start a new one');
    expect(text).not.toContain('question (round 1)');
    expect(renderOutcome(closedOutcome(waiting, { how: 'timed_out', reason: null }), null)).toContain(
      '  error TIMED_OUT: the run reached its Temporal execution timeout before it finished; it takes no answers',
    );
  });

  test('ragtime chat\'s run line says cancelled', () => {
    expect(renderChatOutcome(closedOutcome(waiting, { how: 'cancelled', reason: null })).join('\n')).toContain('  cancelled · route clarify · run rag-s-1-0a1b2c3d · CANCELLED: the run was cancelled');
  });

  test('a run that failed on its own still heads FAILED; a waiting one AWAITING_INPUT', () => {
    expect(shownStatus({ status: 'failed', error: { type: 'SERVICE_UNAVAILABLE', message: 'x' } })).toBe('failed');
    expect(renderOutcome(waiting, null).split('\n')[0]).toBe('AWAITING_INPUT  route=clarify  status=success');
  });
});

describe('ragtime cancel prints', () => {
  const id = 'rag-s-1-0a1b2c3d';

  test('a run cancelled with its sub-questions', () => {
    expect(
      renderCancellation({
        workflowId: id,
        cancelled: true,
        status: 'cancelled',
        reason: 'asked twice',
        children: [{ workflowId: `${id}/sub-1`, status: 'cancelled' }, { workflowId: `${id}/sub-2`, status: 'completed' }],
      }),
    ).toMatchInlineSnapshot(`
"run rag-s-1-0a1b2c3d cancelled (reason: "asked twice")
  sub-question rag-s-1-0a1b2c3d/sub-1: cancelled
  sub-question rag-s-1-0a1b2c3d/sub-2: completed"
`);
  });

  test('a request no worker processed yet, and a run that had already ended', () => {
    expect(renderCancellation({ workflowId: id, cancelled: true, status: 'running', reason: null, children: [] })).toMatchInlineSnapshot(
      `"cancellation of run rag-s-1-0a1b2c3d requested; it ends when a worker picks the request up (ragtime doctor checks one polls)"`,
    );
    expect(renderCancellation({ workflowId: id, cancelled: false, status: 'timed_out', reason: null, children: [] })).toMatchInlineSnapshot(
      `"run rag-s-1-0a1b2c3d had already ended: timed out; nothing was changed"`,
    );
  });
});
