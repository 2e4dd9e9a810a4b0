import { WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { isRagError } from '../../../core/errors';
import { isServerGone, reattaching } from '../../../client/reattach';

/* Issue 14 §4: what counts as "the server went away", and how long a caller is kept waiting for it to come back. */

const unavailable = () => Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 });
const wrapped = (cause: Error) => new Error('Update-With-Start failed', { cause });

test('an unreachable server or a cut-off update call is "gone"; a refusal is not', () => {
  expect(isServerGone(wrapped(unavailable()))).toBe(true);
  expect(isServerGone(new WorkflowUpdateRPCTimeoutOrCancelledError('timeout', { cause: new Error('x') }))).toBe(true);
  expect(isServerGone(Object.assign(new Error('not found'), { code: 5 }))).toBe(false);
  expect(isServerGone(new Error('Workflow Update failed'))).toBe(false);
});

test('called again until the server is back; each pause longer, at most 5 s', async () => {
  const pauses: number[] = [];
  let calls = 0;
  const result = await reattaching(
    async () => {
      calls += 1;
      if (calls < 5) throw wrapped(unavailable());
      return 'outcome';
    },
    { workflowId: 'rag-x', sleep: async (ms) => void pauses.push(ms) },
  );
  expect(result).toBe('outcome');
  expect(pauses).toEqual([500, 1000, 2000, 4000]);
});

test('another failure is thrown at once; a server gone past the window is SERVICE_UNAVAILABLE naming the run', async () => {
  const refused = new Error('refused');
  await expect(reattaching(async () => Promise.reject(refused), { workflowId: 'rag-x', sleep: async () => undefined })).rejects.toBe(refused);
  const error = await reattaching(async () => Promise.reject(unavailable()), { workflowId: 'rag-y', windowMs: 0, sleep: async () => undefined }).catch((caught: unknown) => caught);
  expect(isRagError(error) && error.code).toBe('SERVICE_UNAVAILABLE');
  expect((error as Error).message).toContain('ragtime trace rag-y');
});
