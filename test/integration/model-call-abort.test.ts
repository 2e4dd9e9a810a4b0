import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { modelActivities } from '../../activities/model-activities';
import type { Chunk } from '../../core/schemas/retrieved-chunk';

/*
 * Issue 43 §3: an activity cancelled (a run cancelled, an activity timed out) closes its model request, so the model
 * server sees its client go away and stops generating (the local server's side: test/llm/logprobs-and-abort.llm.ts).
 * A loopback server that never answers stands for a model still working; the adapter's request must close soon after
 * the activity's cancellation, not when the call's own timeout (here 60 s) fires.
 */

const DOCS: Chunk[] = [{ filename: 'warranty.md', page_number: 1, text: 'The Aurora X2 router has a two-year warranty.' }];

type Held = { opened: number; closedAt: number[]; url: string; close(): Promise<void> };

async function holdingServer(): Promise<Held> {
  const held: Held = { opened: 0, closedAt: [], url: '', close: async () => undefined };
  const server = http.createServer((req, res) => {
    held.opened += 1;
    req.resume();
    res.once('close', () => held.closedAt.push(performance.now()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  held.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  held.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return held;
}

const until = async (check: () => boolean, limitMs: number) => {
  const started = performance.now();
  while (!check() && performance.now() - started < limitMs) await new Promise((resolve) => setTimeout(resolve, 10));
};

test.each([
  ['the grader', (activities: ReturnType<typeof modelActivities>) => activities.gradeEvidence({ question: 'How long is the warranty?', docs: DOCS, rewriteCount: 0, isSubAgent: false })],
  ['the answer writer', (activities: ReturnType<typeof modelActivities>) => activities.generateAnswer({ question: 'How long is the warranty?', docs: DOCS } as never)],
])('a cancelled activity closes the model request of %s', async (_, call) => {
  const server = await holdingServer();
  try {
    const models = createOpenAiChatModels({ apiKey: 'local', baseUrl: server.url, fastModel: 'm', gradeModel: 'm', timeoutMs: 60_000 });
    const env = new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR') });
    const running = env.run(() => call(modelActivities(models))).catch((error: unknown) => error);
    await until(() => server.opened === 1, 5_000);
    expect(server.opened).toBe(1);
    const cancelledAt = performance.now();
    env.cancel();
    await running;
    await until(() => server.closedAt.length === 1, 5_000);
    expect(server.closedAt).toHaveLength(1);
    // Closed by the cancellation, well before the call's own 60 s timeout.
    expect((server.closedAt[0] as number) - cancelledAt).toBeLessThan(1_000);
  } finally {
    await server.close();
  }
});
