import { createAnswerStreamStore, type SqlAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import { followAnswer } from '../../client/follow-answer';
import type { RagClient } from '../../client/rag-client';
import type { AnswerStreamMessage } from '../../core/schemas/answer-stream';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { RagOutcome } from '../../core/schemas/run-io';
import type { SpeculationLevel } from '../../core/schemas/speculation';
import { chunk, grade, retrievalTable, stepBackPlan } from '../support/scenario';
import { newTaskQueue, openWorkflowEnv, sessionId, withWorker, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * Streaming answers (issue 25 §2) on the real dev server, with the real answer activity publishing to the real side
 * channel (SQLite) and the client's follower reading it beside the run: sources, then the text as it is written, a
 * discard wherever what was shown became void (a retried attempt, a repair), and the run's own answer at the end —
 * so what a listener ends with is always the record. A speculative draft the run drops is never shown.
 */

let env: WorkflowEnv;
let stream: SqlAnswerStreamStore;
beforeAll(async () => {
  env = await openWorkflowEnv();
  stream = createAnswerStreamStore({ sqliteFile: ':memory:' });
}, 120_000);
afterAll(async () => {
  await stream?.close();
  await env?.close();
});

const Q = '丹瑾是什么属性？';
const QR = '这个角色的属性是什么？';
const leaf = (text: string, n: number): Chunk => chunk(text, { chunk_id: `doc.pdf::p1::l3::${n}`, filename: 'doc.pdf', page_number: 1 });
const c1 = leaf('丹瑾是一名湮灭属性的角色。她擅长近战。', 1);
const c2 = leaf('角色属性体系包括湮灭、衍射等六种属性。', 2);
const weak = leaf('角色属性总表', 3);
const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);
const weakRewrite = grade('weak', 'partial', 'none', 'rewrite', 0.44);
const good = { answer: '丹瑾是湮灭属性的角色[1]。', citations: [{ marker: 1, doc_index: 1, quote: '丹瑾是一名湮灭属性的角色' }] };
const badCitation = { answer: '丹瑾是湮灭属性[1]。', citations: [{ marker: 1, doc_index: 1, quote: '丹瑾属于衍射属性' }] };

/** Asks and follows the answer as a listener does; returns the outcome and every message, in order. */
async function askStreaming(rag: RagClient, question: string, speculation: SpeculationLevel = 'off') {
  const messages: AnswerStreamMessage[] = [];
  const workflowId = `rag-stream-${sessionId()}`;
  const outcome = await followAnswer(rag.ask(question, { sessionId: sessionId(), workflowId, speculation }), rag, workflowId, stream, (message) => messages.push(message), { intervalMs: 20 });
  return { outcome, messages };
}

/** What a screen shows at the end: the text after the last discard, or the final's text when it replaced it. */
function shown(messages: AnswerStreamMessage[]): string {
  let text = '';
  for (const message of messages) {
    if (message.type === 'delta') text += message.text;
    if (message.type === 'discard') text = '';
    if (message.type === 'final' && message.replaced) text = message.text;
  }
  return text;
}

const types = (messages: AnswerStreamMessage[]) => [...new Set(messages.map((message) => message.type))];

describe('the answer as it is written, ending with the record', () => {
  test('sources first, then the text in pieces, then the final answer equal to it', async () => {
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, answers: [good] }, async (rag) => {
      const { outcome, messages } = await askStreaming(rag, Q);
      expect(outcome.answer?.text).toBe(good.answer);
      expect(messages[0]).toEqual({ type: 'sources', sources: [{ n: 1, filename: 'doc.pdf', page_number: 1, preview: c1.text }] });
      expect(messages.filter((message) => message.type === 'delta').length).toBeGreaterThanOrEqual(2);
      expect(messages.at(-1)).toMatchObject({ type: 'final', text: good.answer, replaced: false, verification: 'verified' });
      expect(shown(messages)).toBe(outcome.answer?.text);
    }, { answerStream: stream });
  });

  test('a retried attempt: what the failed one showed is discarded, then the retry\'s text', async () => {
    const script: AdapterScript = { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, answers: [new Error('connection reset'), good] };
    await withWorker(env, script, async (rag) => {
      const { outcome, messages } = await askStreaming(rag, Q);
      expect(outcome.answer?.text).toBe(good.answer);
      // The failed attempt's partial text may or may not have been read before the retry replaced it; if it was, a
      // discard follows it. Either way the screen ends with the record.
      const partial = messages.findIndex((message) => message.type === 'delta' && message.text.includes('半截'));
      if (partial >= 0) expect(messages.slice(partial).some((message) => message.type === 'discard')).toBe(true);
      expect(shown(messages)).toBe(good.answer);
      expect(messages.at(-1)).toMatchObject({ type: 'final', replaced: false });
    }, { answerStream: stream });
  });

  test('a repair: the first draft is discarded, the repaired one streams, the final is the record', async () => {
    const script: AdapterScript = { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, answers: [badCitation, good] };
    await withWorker(env, script, async (rag) => {
      const { outcome, messages } = await askStreaming(rag, Q);
      expect(outcome.answer).toMatchObject({ text: good.answer, repair_attempted: true });
      expect(shown(messages)).toBe(good.answer);
      expect(types(messages)).toEqual(expect.arrayContaining(['sources', 'delta', 'final']));
    }, { answerStream: stream });
  });

  test('speculation: a draft written beside a grade that rewrites is never shown; the one taken is', async () => {
    const rewritten = `${QR}\n\n退步问题：角色属性体系是什么？`;
    const script: AdapterScript = {
      retrieve: retrievalTable({ [QR]: [weak], [rewritten]: [c2] }),
      grades: { [QR]: [weakRewrite, sure] },
      rewritePlans: [stepBackPlan('角色属性体系是什么？')],
    };
    await withWorker(env, script, async (rag) => {
      const { outcome, messages } = await askStreaming(rag, QR, 'answer');
      expect(outcome.route).toBe('answer');
      const dropped = outcome.speculation?.records.filter((record) => record.kind === 'answer' && record.outcome === 'discarded') ?? [];
      expect(dropped.length).toBeGreaterThanOrEqual(1);
      // Only the taken draft's text was ever streamed: no discard, and the text is the record's.
      expect(messages.filter((message) => message.type === 'discard')).toEqual([]);
      expect(messages.filter((message) => message.type === 'delta').map((message) => message.text).join('')).toBe(outcome.answer?.text);
      expect(messages[0]).toMatchObject({ type: 'sources', sources: [{ n: 1, preview: c2.text }] });
    }, { answerStream: stream });
  });

  test('a run that ends without an answer streams no text; the side channel is optional', async () => {
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [] }) }, async (rag) => {
      const { outcome, messages }: { outcome: RagOutcome; messages: AnswerStreamMessage[] } = await askStreaming(rag, Q);
      expect(outcome.route).toBe('no_knowledge');
      expect(messages).toEqual([]);
    }, { answerStream: stream });
    // A worker without the side channel answers the same; a listener gets the record at the end.
    expect(newTaskQueue()).toMatch(/^test-/);
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, answers: [good] }, async (rag) => {
      const { outcome, messages } = await askStreaming(rag, Q);
      expect(outcome.answer?.text).toBe(good.answer);
      expect(messages.map((message) => message.type)).toEqual(['sources', 'final']);
      expect(messages.at(-1)).toMatchObject({ replaced: true, text: good.answer });
    });
  });
});
