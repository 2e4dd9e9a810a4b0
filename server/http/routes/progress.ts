import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RagStep } from '../../../core/progress/rag-step';
import { stableSteps } from '../../../core/progress/stable-steps';
import { AnswerStreamView } from '../../../core/answer-stream/answer-stream-view';
import type { AnswerStreamMessage } from '../../../core/schemas/answer-stream';
import type { RagOutcome } from '../../../core/schemas/run-io';
import { isRagError } from '../../../core/errors';
import { isRedacted, redactForReader } from '../../../core/knowledge/redact-for-reader';
import { readAnswerStream } from '../../../client/follow-answer';
import { pushCollector } from '../../../client/read-answer-stream';
import type { RagClient } from '../../../client/rag-client';
import { childrenStepsLive, runMark } from '../../../client/run-mark';
import { ApiError, RunParams } from '../api-schemas';
import { hiddenFor } from '../reader-view';
import { findOwnedRun } from '../run-access';
import type { RouteDeps } from '../server-deps';
import { SSE_HEADERS, SSE_HEARTBEAT, createSseStream, sseEvent } from '../sse';

// EventSource sends the id of the last event it saw when it reconnects: the stream resumes after that step.
const ProgressHeaders = z.object({ 'last-event-id': z.string().regex(/^\d{1,9}$/, 'Last-Event-ID is not a step number').optional() });

type Snapshot = { outcome: RagOutcome; steps: RagStep[] };

/** Polls in a row that may fail before the stream reports the failure (a few seconds at the default 500 ms). */
const MAX_POLL_FAILURES = 5;

/**
 * The outcome first, then the steps: once the outcome has settled, the steps read after it are complete. Only the
 * steps whose index is final (stableSteps): while sub-questions run, the listing holds their live steps, and a
 * step after an unfinished sub-question is held back until its index is certain.
 */
async function snapshot(rag: RagClient, workflowId: string): Promise<Snapshot> {
  const outcome = await rag.getOutcome(workflowId);
  return { outcome, steps: stableSteps(await rag.getProgress(workflowId)) };
}

/**
 * GET /api/runs/{workflowId}/progress as server-sent events: one `step` event per new progress step, then one
 * `outcome` event when the run is no longer running (completed, failed or awaiting input), and the end of the
 * stream. A step's id is its index in the run's progress log: given once, never changed, larger than every id sent
 * before it, so that resuming after Last-Event-ID neither skips nor repeats a step (issue 14 §12). Heartbeat
 * comments keep idle connections open. Polling stops as soon as the client goes away.
 */
export const progressRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { rag, tenants, knowledge, limits, answerStream }) => {
  const streams = new Set<() => void>();
  app.addHook('onClose', async () => streams.forEach((stop) => stop()));

  app.get('/api/runs/:workflowId/progress', {
    schema: {
      summary: "A run's progress as server-sent events (`step`, then `outcome`; `error` if polling fails)",
      tags: ['runs'],
      params: RunParams,
      headers: ProgressHeaders,
      response: {
        200: { description: "server-sent events: `step` (id = the step's index in the run's progress log, stable and increasing), then `outcome`", content: { 'text/event-stream': { schema: z.string() } } },
        400: ApiError,
        401: ApiError,
        404: ApiError,
        503: ApiError,
      },
    },
  }, async (request, reply) => {
    const { workflowId } = request.params;
    await findOwnedRun(rag, tenants, request.tenant, workflowId);
    // issue 44 §4: steps and the outcome as the reader may see them; the answer's text is not sent at all once its
    // evidence names a document the reader may not read (the outcome then says not_visible).
    const hidden = await hiddenFor(knowledge, tenants, request);
    const hides = (value: unknown) => hidden.refs.length > 0 && isRedacted(value, redactForReader(value, hidden));
    let answerHidden = false;
    // Issue 47 §3: the run is asked (outcome, steps, the answer's generation: three queries through a worker) only
    // when its history grew since it was last asked; a describe (the server alone) says whether it did. Taken before
    // each snapshot, so that a change after it shows at the next wake.
    const askOnChange = limits.progressAskOnChange;
    let mark = askOnChange ? await runMark(rag, workflowId) : null;
    // The first poll happens before the stream opens, so its failures are ordinary HTTP errors (404, 503).
    let current = await snapshot(rag, workflowId);
    const lastSeen = request.headers['last-event-id'];
    // The id of the next step to send. It only grows: a listing that is shorter for a moment (a sub-question's query
    // failed) sends nothing until it has caught up.
    let sent = lastSeen === undefined ? 0 : Number(lastSeen) + 1;

    const sse = createSseStream();
    let stopped = false;
    let wake: () => void = () => undefined;
    const stop = () => {
      stopped = true;
      wake();
    };
    streams.add(stop);
    // 'close' on the response: the stream ended or the client disconnected (not the request's 'close').
    reply.raw.on('close', stop);
    const heartbeat = setInterval(() => sse.write(SSE_HEARTBEAT), limits.heartbeatMs);
    const pause = (ms = limits.progressPollMs) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });

    // A poll that fails for a moment (a query that timed out on a busy worker, a run closing between the two reads)
    // is polled again; the stream gives up with an `error` event only after a few failures in a row, or at once on a
    // terminal one (the run is gone).
    const nextSnapshot = async (): Promise<Snapshot | null> => {
      for (let failures = 1; ; failures += 1) {
        try {
          return await snapshot(rag, workflowId);
        } catch (error) {
          if ((isRagError(error) && error.terminal) || failures >= MAX_POLL_FAILURES) throw error;
          request.log.warn({ err: error, failures }, 'progress poll failed; polling again');
          await pause();
          if (stopped) return null;
        }
      }
    };

    // Issue 25 §2: the answer as it is written, as `answer` events (sources, delta, discard, final) beside the steps.
    // They carry no id: a client that resumes after Last-Event-ID gets the final answer, not the text it missed.
    const answer = new AnswerStreamView();
    const sendAnswer = (messages: AnswerStreamMessage[]) =>
      messages.forEach((message) => {
        answerHidden ||= hides(message) || hides(current.outcome.docs);
        if (!answerHidden) sse.write(sseEvent('answer', message));
      });
    // Issue 36 §3: a pushing side channel (PostgreSQL) wakes the pause when text is written; the poll stays for steps.
    const pushes = pushCollector();
    const unsubscribe = answerStream?.onAppend?.(workflowId, (generation, events) => {
      pushes.push(generation, events);
      wake();
    });
    /**
     * `last`: the read after the run settled trusts the pushes (client/read-answer-stream.ts); the record follows.
     * `runUnchanged`: the run's history has not grown since it was asked, so it shows the same generation.
     */
    const readAnswer = async (last = false, runUnchanged = false): Promise<AnswerStreamMessage[]> => {
      const read: AnswerStreamMessage[] = [];
      if (answerStream) await readAnswerStream(answer, rag, workflowId, answerStream, (messages) => read.push(...messages), { ...pushes.take(), trustPushes: last, runUnchanged });
      return read;
    };
    /** Whether the run may have changed since it was last asked (then `mark` is the new one). */
    const changed = async (): Promise<boolean> => {
      if (!askOnChange || childrenStepsLive(current.steps)) return true;
      const now = await runMark(rag, workflowId);
      if (now !== null && now === mark) return false;
      mark = now;
      return true;
    };

    // Issue 33 §3: the answer is read before the snapshot and sent after its steps. The run names the generation it
    // shows in the workflow task that logs the answer's step, so every step logged before what the answer read saw
    // is in the snapshot read next, and no answer event passes the step that led to it.
    // A push of the generation already shown (its step was in an earlier snapshot) is read and sent at once, without
    // asking the run for a snapshot: the run is asked once per poll interval, not once per written batch (issue 36 §2).
    const pushedShownGeneration = () => pushes.written !== undefined && pushes.written === answer.reading?.generation;
    const follow = async () => {
      let held: AnswerStreamMessage[] = [];
      let snapshotAt = Date.now();
      try {
        for (;;) {
          for (; sent < current.steps.length; sent += 1) sse.write(sseEvent('step', redactForReader(current.steps[sent], hidden), sent));
          sendAnswer(held);
          if (current.outcome.status !== 'running') {
            // Every step is out: what the writer published before the run settled, then the record.
            if (answerStream) sendAnswer([...(await readAnswer(true)), ...answer.finish(current.outcome.status === 'completed' ? current.outcome.answer : null, current.outcome.docs)]);
            sse.write(sseEvent('outcome', redactForReader(current.outcome, hidden)));
            return;
          }
          await pause(Math.max(0, limits.progressPollMs - (Date.now() - snapshotAt)));
          if (stopped) return;
          if (pushedShownGeneration() && Date.now() - snapshotAt < limits.progressPollMs) {
            held = [];
            sendAnswer(await readAnswer());
            continue;
          }
          snapshotAt = Date.now();
          if (!(await changed())) {
            held = await readAnswer(false, true);
            continue;
          }
          held = await readAnswer();
          const next = await nextSnapshot();
          if (next === null) return;
          current = next;
        }
      } catch (error) {
        const body = isRagError(error) ? { error: error.code, message: error.message } : { error: 'INTERNAL', message: 'progress polling failed' };
        if (!isRagError(error)) request.log.error({ err: error }, 'progress stream failed');
        sse.write(sseEvent('error', body));
      } finally {
        unsubscribe?.();
        clearInterval(heartbeat);
        streams.delete(stop);
        sse.end();
      }
    };
    void follow();
    // A stream is sent as it is (not serialized); the typed reply only knows the documented JSON bodies.
    return (reply as FastifyReply).headers(SSE_HEADERS).send(sse.stream);
  });
};
