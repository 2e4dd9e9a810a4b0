import { followRun } from '../../../client/follow-run';
import type { RagStep } from '../../../core/progress/rag-step';
import type { AnswerStreamMessage, StreamEvent } from '../../../core/schemas/answer-stream';
import type { RagOutcome } from '../../../core/schemas/run-io';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';

/*
 * Issue 33 §3: a listener of a run gets the steps as they happen, then the answer's sources, its text and the final
 * record — in the order the run produced them. The run here is scripted as workflow tasks ("activations"), one of
 * which lands before every read a listener makes: the worst case of a run that moves on between two reads. The old
 * listeners (followProgress around followAnswer, two loops at their own pace, as the CLI and MCP had them) print the
 * answer before the steps that led to it and fail these tests.
 */

const step = (label: string, elapsed: number): RagStep => ({ icon: '•', label, detail: '', elapsed_ms: elapsed, stage_elapsed_ms: 0 });
const doc: Chunk = { id: '1', text: 'Aurora X2 提供 2 年保修。', filename: 'Aurora X2.md', page_number: 0, score: 1 } as Chunk;
const event = (seq: number, text: string, kind: StreamEvent['kind'] = 'delta'): StreamEvent => ({ generation: 'answer-1', attempt: 1, seq, kind, text });

type RunState = { steps: RagStep[]; generation: string | null; events: StreamEvent[] };

/**
 * A run that takes one workflow task per read made of it (a query or a read of the side channel), so that the run
 * moves on between any two reads; it settles after its last task. Each read is timestamped with the step it saw.
 */
function scriptedRun(activations: Array<(state: RunState) => void>, final: RagOutcome) {
  const state: RunState = { steps: [], generation: null, events: [] };
  let next = 0;
  let settle: (outcome: RagOutcome) => void = () => undefined;
  const pending = new Promise<RagOutcome>((resolve) => (settle = resolve));
  const advance = () => {
    const activation = activations[next++];
    if (activation) activation(state);
    if (next === activations.length) setTimeout(() => settle(final), 5);
  };
  const rag = {
    getProgress: async () => {
      advance();
      return [...state.steps];
    },
    getAnswerStream: async () => {
      advance();
      return { generation: state.generation, docs: state.generation ? [doc] : [] };
    },
  };
  const reader = {
    eventsOf: async (_id: string, generation: string, after: { attempt: number; seq: number }) => {
      advance();
      return state.events.filter((e) => e.generation === generation && (e.attempt > after.attempt || (e.attempt === after.attempt && e.seq > after.seq)));
    },
  };
  return { pending, rag, reader };
}

const answered: RagOutcome = {
  workflowId: 'rag-s-1',
  runId: 'r',
  sessionId: 's',
  kb: 'kb',
  status: 'completed',
  route: 'answer',
  retrieval_status: 'answerable',
  rag_trace: null,
  docs: [doc],
  hitl: null,
  hitl_resume_state: null,
  rounds: [],
  error: null,
  answer: {
    text: 'Aurora X2 提供 2 年保修[1]。',
    citations: [{ marker: 1, doc_index: 1, chunk_id: null, filename: 'Aurora X2.md', page_number: 0, quote: 'Aurora X2 提供 2 年保修。' }],
    verification: { status: 'verified', invalid_citations: [], uncited_sentences: [] },
    model: 'offline',
    prompt_version: 'answer-v1',
    duration_ms: 1,
    repair_attempted: false,
  },
  answer_null_reason: null,
  answer_error: null,
  degraded: null,
} as RagOutcome;

/** What a listener received, one word per item: the step's label, or the answer message's type. */
async function listen(activations: Array<(state: RunState) => void>) {
  const run = scriptedRun(activations, answered);
  const got: string[] = [];
  const outcome = await followRun(run.pending, run.rag, 'rag-s-1', {
    steps: { onStep: (s) => void got.push(s.label) },
    answer: { reader: run.reader, onMessage: (m: AnswerStreamMessage) => void got.push(m.type === 'delta' ? `delta:${m.text}` : m.type) },
  }, { intervalMs: 1 });
  return { outcome, got };
}

describe('followRun: steps, then sources, text and the checked record, in the order the run made them (issue 33 §3)', () => {
  test('the step that starts the answer is logged in the task that names its generation: it reaches the listener first', async () => {
    const { outcome, got } = await listen([
      (s) => s.steps.push(step('planning', 5)),
      (s) => s.steps.push(step('retrieving', 100)),
      (s) => s.steps.push(step('grading', 200)),
      // One workflow task: the grade's step, the answer's step, and the generation listeners are shown.
      (s) => {
        s.steps.push(step('evidence sufficient', 800), step('writing the answer', 800));
        s.generation = 'answer-1';
      },
      (s) => s.events.push(event(0, 'Aurora X2 提供 ')),
      (s) => s.events.push(event(1, '2 年保修[1]。')),
      (s) => {
        s.events.push(event(2, '', 'end'));
        s.steps.push(step('answer written, citations verified', 900));
      },
    ]);
    expect(outcome.status).toBe('completed');
    // The steps up to the answer's, in order, before its sources; its text in order; the record last. (The step that
    // ends the answer may come before the last of the text when both are new in one read: the text is still whole.)
    const steps = ['planning', 'retrieving', 'grading', 'evidence sufficient', 'writing the answer', 'answer written, citations verified'];
    expect(got.filter((item) => steps.includes(item))).toEqual(steps);
    expect(got.indexOf('writing the answer')).toBeLessThan(got.indexOf('sources'));
    expect(got.indexOf('sources')).toBeLessThan(got.indexOf('delta:Aurora X2 提供 '));
    expect(got.filter((item) => item.startsWith('delta:'))).toEqual(['delta:Aurora X2 提供 ', 'delta:2 年保修[1]。']);
    expect(got.at(-1)).toBe('final');
  });

  test('every step logged before the answer was named precedes its sources, whichever read a task lands between', async () => {
    // A task after every read: whatever the listener reads first, the run has moved on before its second read.
    for (let offset = 0; offset < 3; offset += 1) {
      const idle = Array.from({ length: offset }, () => () => undefined);
      const { got } = await listen([
        ...idle,
        (s) => s.steps.push(step('grading', 200)),
        (s) => {
          s.steps.push(step('writing the answer', 800));
          s.generation = 'answer-1';
          s.events.push(event(0, 'Aurora X2 提供 2 年保修[1]。'), event(1, '', 'end'));
        },
      ]);
      expect(got.indexOf('writing the answer')).toBeGreaterThanOrEqual(0);
      expect(got.indexOf('writing the answer')).toBeLessThan(got.indexOf('sources'));
      expect(got.at(-1)).toBe('final');
    }
  });

  test('a run that ends between two reads: its last steps, then the rest of its text, then the record', async () => {
    const { got } = await listen([
      (s) => {
        s.steps.push(step('writing the answer', 10));
        s.generation = 'answer-1';
        s.events.push(event(0, 'Aurora X2 提供 2 年保修[1]。'), event(1, '', 'end'));
        s.steps.push(step('answer written, citations verified', 20));
      },
    ]);
    expect(got).toEqual(['writing the answer', 'answer written, citations verified', 'sources', 'delta:Aurora X2 提供 2 年保修[1]。', 'final']);
  });

  test('a query of the settled run that fails is read again: its last steps are not dropped (the CI failure of mcp-stdio)', async () => {
    // The run settles without the listener having seen its answer's steps; the first query after that fails, as a
    // query of a closed run does when no worker replays it in time. Before, the read after the outcome counted as
    // done when the answer's read worked, and 'writing the answer' never reached the listener.
    const run = scriptedRun([(s) => s.steps.push(step('grading', 5))], answered);
    let steps: RagStep[] = [];
    let settled = false;
    let failures = 0;
    void run.pending.then(() => {
      settled = true;
      steps = [step('grading', 5), step('writing the answer', 10), step('answer written, citations verified', 20)];
    });
    const rag = {
      getProgress: async () => {
        if (!settled) return run.rag.getProgress();
        if (failures++ === 0) throw new Error('query timed out');
        return steps;
      },
      getAnswerStream: async () => ({ generation: null, docs: [] }),
    };
    const got: string[] = [];
    await followRun(run.pending, rag, 'rag-s-1', { steps: { onStep: (s) => void got.push(s.label) } }, { intervalMs: 1 });
    expect(failures).toBeGreaterThanOrEqual(2);
    expect(got).toEqual(['grading', 'writing the answer', 'answer written, citations verified']);
  });
});
