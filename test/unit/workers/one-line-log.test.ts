import { ApplicationFailure } from '@temporalio/common';
import { oneLineEntry } from '../../../workers/one-line-log';

// Issue 33 §5: one failed model call was ~200 lines of stacks in the worker's log; it is one line per attempt.
test('a failed activity attempt is one line: where (workflow, activity, attempt) and why (each cause once)', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  const fetchFailed = new TypeError('fetch failed', { cause: refused });
  const failure = ApplicationFailure.create({
    type: 'SERVICE_UNAVAILABLE',
    message: 'the model endpoint http://127.0.0.1:9/v1 cannot be reached (connect ECONNREFUSED 127.0.0.1:9)\n    at somewhere (file.ts:1:1)',
    cause: fetchFailed,
  });
  const line = oneLineEntry({
    level: 'WARN',
    message: 'Activity failed',
    timestampNanos: 1_796_000_000_000_000_000n,
    meta: { sdkComponent: 'activity', activityType: 'gradeEvidence', workflowId: 'rag-s-1', attempt: 2, error: failure, durationMs: 4 },
  });
  expect(line.split('\n')).toHaveLength(1);
  expect(line).toBe(
    '2026-11-30T00:53:20.000Z [WARN] Activity failed sdkComponent=activity activityType=gradeEvidence workflowId=rag-s-1 attempt=2 ' +
      'error=ApplicationFailure[SERVICE_UNAVAILABLE]: the model endpoint http://127.0.0.1:9/v1 cannot be reached (connect ECONNREFUSED 127.0.0.1:9) ' +
      '← TypeError: fetch failed ← Error[ECONNREFUSED]: connect ECONNREFUSED 127.0.0.1:9 durationMs=4',
  );
});
