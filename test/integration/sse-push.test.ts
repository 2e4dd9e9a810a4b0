import type { AnswerRequest } from '../../activities/ports';
import { followRun } from '../../client/follow-run';
import type { RagClient } from '../../client/rag-client';
import type { AnswerDraft } from '../../core/schemas/answer';
import { RunStarted } from '../../server/http/api-schemas';
import { bearer, httpModels, openHttpHarness, simpleQuestion, type HttpHarness } from '../support/http-harness';
import { sessionId } from '../workflows/harness';
import { services } from '../support/services';

/*
 * Issue 36 §2–§3: the progress stream (SSE) on PostgreSQL is woken by each append of the answer's text, and sends it
 * at once; it asks the run for a snapshot (outcome and steps) once per poll interval, not once per append. Before,
 * every pushed batch of text also cost two queries through the worker. Issue 47 §3: it asks the run only when the
 * run's history grew (a describe, the server alone), not at every poll; so does followRun (the CLI's listener).
 */

const PIECES = 30;
const PIECE_MS = 60;
const PIECE = '丹瑾是湮灭属性角色[1]。';
const POLL_MS = 1_000;

/** The answer in PIECES deltas PIECE_MS apart, each a cited sentence of the default retrieval's passage. */
async function writeManyDeltas(request: AnswerRequest): Promise<AnswerDraft> {
  for (let i = 0; i < PIECES; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, PIECE_MS));
    request.onText?.({ kind: 'delta', text: PIECE });
  }
  return { answer: PIECE.repeat(PIECES), citations: [{ marker: 1, doc_index: 1, quote: '丹瑾是湮灭属性角色' }] };
}

let harness: HttpHarness;
beforeAll(async () => {
  harness = await openHttpHarness({ databaseUrl: services.testDatabaseUrl, models: { ...httpModels, writeAnswer: writeManyDeltas } });
}, 120_000);
afterAll(() => harness?.close());

test('a pushed answer is sent as it is written, and the run is asked once per poll interval, not once per append', async () => {
  let snapshots = 0;
  const rag = new Proxy(harness.rag, {
    get(target, property, receiver) {
      if (property === 'getProgress') {
        return (...args: Parameters<RagClient['getProgress']>) => {
          snapshots += 1;
          return target.getProgress(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const app = harness.server({ rag, limits: { bodyLimitBytes: 64 * 1024, progressPollMs: POLL_MS, heartbeatMs: 5_000 } });
  try {
    const asked = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question: simpleQuestion('多段'), sessionId: sessionId(), wait: false } });
    const started = RunStarted.parse(JSON.parse(asked.body));
    const opened = Date.now();
    const response = await app.inject({ method: 'GET', url: `/api/runs/${started.workflowId}/progress`, headers: bearer('acme') });
    const seconds = (Date.now() - opened) / 1000;
    const events = response.body.split('\n\n').filter((block) => block.startsWith('event: '));
    const deltas = events.filter((block) => block.startsWith('event: answer') && block.includes('"type":"delta"'));
    expect(events.at(-1)).toMatch(/^event: outcome/);
    // The writer's 20 ms batches: most pieces come as a push of their own.
    expect(deltas.length).toBeGreaterThanOrEqual(PIECES / 2);
    console.log(`${deltas.length} answer deltas in ${seconds.toFixed(1)} s; ${snapshots} snapshots at a ${POLL_MS} ms poll`);
    // One snapshot before the stream opens, one per poll interval, one when the answer's generation first shows, and
    // one more for a poll cut short by it; never one per append.
    expect(snapshots).toBeLessThanOrEqual(Math.ceil(seconds * (1000 / POLL_MS)) + 3);
  } finally {
    await app.close();
  }
}, 60_000);

test('issue 47 §3: the progress stream asks the run only when its history grew, not at every poll', async () => {
  const asked = { before: 0, after: 0 };
  const counting = (key: keyof typeof asked) =>
    new Proxy(harness.rag, {
      get(target, property, receiver) {
        if (property === 'getProgress') {
          return (...args: Parameters<RagClient['getProgress']>) => {
            asked[key] += 1;
            return target.getProgress(...args);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const follow = async (key: keyof typeof asked) => {
    const app = harness.server({ rag: counting(key), limits: { bodyLimitBytes: 64 * 1024, progressPollMs: 100, heartbeatMs: 5_000, progressAskOnChange: key === 'after' } });
    try {
      const started = await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question: simpleQuestion('多段'), sessionId: sessionId(), wait: false } });
      const { workflowId } = RunStarted.parse(JSON.parse(started.body));
      const response = await app.inject({ method: 'GET', url: `/api/runs/${workflowId}/progress`, headers: bearer('acme') });
      const events = response.body.split('\n\n').filter((block) => block.startsWith('event: '));
      expect(events.at(-1)).toMatch(/^event: outcome/);
      return events.filter((block) => block.startsWith('event: step')).length;
    } finally {
      await app.close();
    }
  };
  const stepsBefore = await follow('before');
  const stepsAfter = await follow('after');
  console.log(`snapshots per run at a 100 ms poll over a ${(PIECES * PIECE_MS) / 1000} s answer: ${asked.before} asking at every poll, ${asked.after} asking when the history grew`);
  // The same steps reach the listener; the run is asked once per change of its history (a handful of workflow
  // tasks), not once per poll (~25 over the answer alone).
  expect(stepsAfter).toBe(stepsBefore);
  expect(asked.after).toBeLessThan(asked.before / 2);
}, 60_000);

test('issue 47 §3: followRun (ragtime ask, chat) asks the run for its steps only when its history grew, with the same steps shown', async () => {
  const follow = async (askOnChange: boolean) => {
    let asked = 0;
    const rag = {
      temporal: harness.rag.temporal,
      getAnswerStream: (id: string) => harness.rag.getAnswerStream(id),
      getProgress: (id: string) => ((asked += 1), harness.rag.getProgress(id)),
    };
    const workflowId = `rag-follow-${sessionId()}`;
    const steps: string[] = [];
    let text = '';
    const outcome = await followRun(harness.rag.ask(simpleQuestion('多段'), { sessionId: sessionId(), workflowId }), rag, workflowId, {
      steps: { onStep: (step) => void steps.push(step.label) },
      answer: { reader: harness.answerStream, onMessage: (message) => void (message.type === 'delta' && (text += message.text)) },
    }, { intervalMs: 100, askOnChange });
    expect(outcome.status).toBe('completed');
    return { asked, steps, text };
  };
  const before = await follow(false);
  const after = await follow(true);
  console.log(`followRun at a 100 ms interval over a ${(PIECES * PIECE_MS) / 1000} s answer: ${before.asked} progress queries asking at every read, ${after.asked} asking when the history grew`);
  expect(after.steps).toEqual(before.steps);
  expect(after.text).toBe(before.text);
  expect(after.asked).toBeLessThan(before.asked / 2);
}, 60_000);
