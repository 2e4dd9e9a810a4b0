import type { FastifyInstance } from 'fastify';
import { offlineWriteAnswer } from '../../activities/adapters/offline-chat-models';
import type { ChatModels, Retriever } from '../../activities/ports';
import { RagError } from '../../core/errors';
import type { RagStep } from '../../core/progress/rag-step';
import { RunStarted } from '../../server/http/api-schemas';
import { bearer, openHttpHarness, type HttpHarness } from '../support/http-harness';
import { chunk, grade, metaM0, plannerResult } from '../support/scenario';
import { pollUntil } from '../support/services';
import { sessionId } from '../workflows/harness';

/*
 * Issue 14 §12: the progress stream's event ids during a complex run. Two sub-questions run as children; while they
 * run, the run's progress lists their live steps after the parent's, and once both finish the parent records them
 * itself. Sub-question 1 retrieves slowly and sub-question 2 grades slowly, so sub-question 2 has recorded most of
 * its steps while sub-question 1 has recorded one — the situation in which ids by list position moved (the id of
 * sub-question 2's first step later named one of sub-question 1's).
 *
 * A reader that disconnects at two points and resumes with Last-Event-ID must get exactly what one uninterrupted
 * read gets, which is exactly the run's final steps; ids strictly increase and each names one step, in every read.
 */

const QUESTION = '比较丹瑾和丹恒的属性';
const SUB_1 = '丹瑾是什么属性？';
const SUB_2 = '丹恒是什么属性？';
/**
 * Sub-question 1's retrieval takes this long; sub-question 2's grade takes longer, so it finishes last. Seconds
 * apart, since a progress poll (a query) can take a second or two on a busy dev server.
 */
const RETRIEVE_MS = 4_000;
const GRADE_MS = 7_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const models: ChatModels = {
  describe: 'progress-ids-models',
  async planComplexity() {
    return plannerResult('complex', 'two characters', [SUB_1, SUB_2]);
  },
  async gradeEvidence(question) {
    if (question === SUB_2) await sleep(GRADE_MS);
    return grade('strong', 'sufficient', 'none', 'answer', 0.95);
  },
  async planRewrite() {
    throw new Error('this test never rewrites');
  },
  answerModel: 'progress-ids-answerer',
  writeAnswer: offlineWriteAnswer,
};
const retriever: Retriever = {
  async retrieve(query) {
    if (query === SUB_1) await sleep(RETRIEVE_MS);
    return { docs: [chunk(`${query.slice(0, 2)}是湮灭属性角色。`)], meta: metaM0(1) };
  },
};

let harness: HttpHarness;
let app: FastifyInstance;
let base: string;
beforeAll(async () => {
  harness = await openHttpHarness({ models, retriever });
  app = harness.server();
  base = await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);
afterAll(async () => harness?.close());

type StreamEvent = { id: string | undefined; event: string | undefined; data: unknown };

/** An open progress stream: its events so far, arriving as the server sends them; `stop` disconnects. */
function openStream(workflowId: string, lastEventId?: string) {
  const controller = new AbortController();
  const events: StreamEvent[] = [];
  const read = async () => {
    const headers = { ...bearer('acme'), ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) };
    const response = await fetch(`${base}/api/runs/${workflowId}/progress`, { headers, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(block)?.[1];
        if (field('event')) events.push({ id: field('id'), event: field('event'), data: JSON.parse(field('data') ?? 'null') as unknown });
      }
    }
  };
  const done = read().catch((error: unknown) => {
    if (!controller.signal.aborted) throw error;
  });
  return {
    events,
    steps: () => events.filter((event) => event.event === 'step'),
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

/** The run's steps as the client lists them now (children's live steps included), by group. */
async function liveGroups(workflowId: string): Promise<Record<string, RagStep[]>> {
  const groups: Record<string, RagStep[]> = {};
  for (const step of await harness.rag.getProgress(workflowId)) (groups[step.group ?? ''] ??= []).push(step);
  return groups;
}

/** "id [group] icon label": a step event in short. */
const brief = (event: StreamEvent): string => {
  const step = event.data as RagStep;
  return `${event.id} ${step.group ? `[${step.group}] ` : ''}${step.icon} ${step.label}`;
};

/** A few server polls (100 ms each in the harness): whatever the stream will send of the current state is sent. */
const settleStream = () => sleep(500);

test('issue 14 §12: resuming with Last-Event-ID at two points of a complex run equals one uninterrupted read', async () => {
  const started = RunStarted.parse(
    JSON.parse((await app.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question: QUESTION, sessionId: sessionId(), wait: false } })).body),
  );
  const { workflowId } = started;
  const whole = openStream(workflowId);

  // Part 1: until sub-question 2 is grading (5 steps) while sub-question 1 still retrieves (1 step), and this
  // part has been sent the steps up to sub-question 1's first.
  const first = openStream(workflowId);
  await pollUntil('sub-question 2 grading while sub-question 1 retrieves', async () => {
    const groups = await liveGroups(workflowId);
    return groups['子问题 2']?.length === 5 && groups['子问题 1']?.length === 1 && first.steps().length >= 5 ? true : undefined;
  }, { intervalMs: 50 });
  await settleStream();
  await first.stop();

  // Part 2: until sub-question 1 has finished (it grades at once after its slow retrieval) and this part has been
  // sent a step with id 14 (the 15th of the listing); sub-question 2 still grades.
  const lastOf = (parts: Array<ReturnType<typeof openStream>>) => parts.flatMap((part) => part.steps()).at(-1)?.id;
  const second = openStream(workflowId, lastOf([first]));
  await pollUntil('sub-question 1 finished', async () => {
    const finished = (await liveGroups(workflowId))['子问题 1']?.length === 6;
    return finished && second.steps().some((event) => Number(event.id) >= 14) ? true : undefined;
  }, { intervalMs: 50 });
  await settleStream();
  await second.stop();

  // Part 3: to the end of the run.
  const third = openStream(workflowId, lastOf([first, second]));
  await Promise.all([whole.done, third.done]);

  const final = await harness.rag.getProgress(workflowId);
  // 4 parent steps, 6 per sub-question, synthesis (2) and the answer node (2).
  expect(final).toHaveLength(4 + 6 + 6 + 2 + 2);
  const wholeSteps = whole.steps();
  const resumed = [first, second, third].flatMap((part) => part.steps());

  // One uninterrupted read: every step of the run once, in the run's order, ids 0, 1, 2, … (compared in short
  // form first, so that a failure reads as a list of ids and steps).
  expect(wholeSteps.map(brief)).toEqual(final.map((step, i) => brief({ id: String(i), event: 'step', data: step })));
  expect(resumed.map(brief)).toEqual(wholeSteps.map(brief));
  expect(wholeSteps.map((event) => event.data)).toEqual(final);
  expect(wholeSteps.map((event) => event.id)).toEqual(final.map((_, i) => String(i)));
  // The resumed read: the same events, ids and all (nothing skipped, nothing repeated).
  expect(resumed).toEqual(wholeSteps);
  for (const part of [first, second, third]) {
    const ids = part.steps().map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  }
  // Each id names one step, whichever read sent it.
  const named = new Map<string, unknown>();
  for (const event of [...wholeSteps, ...resumed]) {
    if (!named.has(event.id!)) named.set(event.id!, event.data);
    expect({ id: event.id, step: event.data }).toEqual({ id: event.id, step: named.get(event.id!) });
  }
  expect(whole.events.at(-1)).toMatchObject({ event: 'outcome', data: { status: 'completed', route: 'answer' } });
  expect(third.events.at(-1)).toMatchObject({ event: 'outcome', data: { status: 'completed' } });
  // Where the parts ended: part 1 while sub-question 2's steps waited for sub-question 1 (the parent's 4 steps and
  // sub-question 1's first); part 2 after sub-question 1 had finished, so sub-question 2's live steps (5 of its 6)
  // were sent before the parent adopted them; part 3 sends the rest.
  const idsOf = (part: ReturnType<typeof openStream>) => part.steps().map((event) => Number(event.id));
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  expect(idsOf(first)).toEqual(range(0, 5));
  expect(idsOf(second)).toEqual(range(5, 15));
  expect(idsOf(third)).toEqual(range(15, 20));
}, 90_000);

test('a progress poll that fails for a moment (a query timing out on a busy worker) is polled again: no step lost, no error event', async () => {
  // The server's client, failing its 2nd and 3rd progress reads as a timed-out query would (SERVICE_UNAVAILABLE).
  let reads = 0;
  const flaky = Object.create(harness.rag) as typeof harness.rag;
  flaky.getProgress = async (workflowId: string) => {
    reads += 1;
    if (reads === 2 || reads === 3) throw new RagError('SERVICE_UNAVAILABLE', 'query timed out (injected)');
    return harness.rag.getProgress(workflowId);
  };
  const flakyApp = harness.server({ rag: flaky });
  const flakyBase = await flakyApp.listen({ host: '127.0.0.1', port: 0 });
  const started = RunStarted.parse(
    JSON.parse((await flakyApp.inject({ method: 'POST', url: '/api/runs', headers: bearer('acme'), payload: { question: QUESTION, sessionId: sessionId(), wait: false } })).body),
  );
  const response = await fetch(`${flakyBase}/api/runs/${started.workflowId}/progress`, { headers: bearer('acme') });
  const text = await response.text();
  const events = text.split('\n\n').flatMap((block) => /^event: (\w+)$/m.exec(block)?.[1] ?? []);
  expect(reads).toBeGreaterThan(3);
  expect(events).not.toContain('error');
  expect(events.at(-1)).toBe('outcome');
  expect(events.filter((event) => event === 'step')).toHaveLength((await harness.rag.getProgress(started.workflowId)).length);
}, 90_000);
