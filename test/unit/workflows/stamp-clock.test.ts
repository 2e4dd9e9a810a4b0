import { RagRun } from '../../../core/run/rag-run';
import { afterLocalActivity, stampNow } from '../../../workflows/stamp-clock';

/*
 * The stamp clock (workflows/stamp-clock.ts) against the two ways a local activity's result reaches a run: live in a
 * workflow task forced by a query (workflow time = that task's start, 230 ms on) and replayed (workflow time = the
 * recorded completion, 18 ms on). Workflow time is Date.now() inside the sandbox; here it is set by hand.
 */

const T1 = 1_796_000_000_000;
let now = T1;
beforeEach(() => jest.spyOn(Date, 'now').mockImplementation(() => now));
afterEach(() => jest.restoreAllMocks());

/** A run whose openTurn ran 18 ms by its own measure, resolved when workflow time reads `resolvedAt`. */
async function stampsAfterOpenTurn(resolvedAt: number): Promise<number[]> {
  now = T1;
  const run = new RagRun(T1);
  await afterLocalActivity(
    run,
    async () => {
      now = resolvedAt;
      return { ranMs: 18 };
    },
    (result) => result.ranMs,
  );
  const beforeNextEvent = [stampNow(run), stampNow(run)];
  now = T1 + 400; // the next activity's task
  return [...beforeNextEvent, stampNow(run)];
}

test('live (resolved in a later task) and replayed (resolved at its completion) stamp alike', async () => {
  const live = await stampsAfterOpenTurn(T1 + 230);
  const replayed = await stampsAfterOpenTurn(T1 + 18);
  expect(live).toEqual([T1 + 18, T1 + 18, T1 + 400]);
  expect(replayed).toEqual(live);
});

test('a result recorded before local activities measured themselves stamps at the activity start', async () => {
  now = T1 + 5;
  const run = new RagRun(T1);
  await afterLocalActivity(run, async () => {
    now = T1 + 230;
    return null;
  });
  expect(stampNow(run)).toBe(T1 + 5);
});

test('without a local activity, stamps are workflow time', () => {
  now = T1 + 42;
  expect(stampNow(new RagRun(T1))).toBe(T1 + 42);
});
