import { LOCAL_MODEL } from '../../../core/local-model';
import { DEFAULT_MODEL_TIMEOUT_MS, MAX_MODEL_TIMEOUT_MS } from '../../../core/model-output/timeouts';
import { CONVERSATION_LOCAL, MODEL_CALL } from '../../../workflows/activity-options';

// A model call's own timeout (MODEL_TIMEOUT_SECONDS) must fire before its activity's start-to-close: at 60 s the
// backstop cut the local model's answers (300 s timeout) short as "Activity task timed out".
describe('model activities outlast the longest model call the settings allow', () => {
  test.each([
    ['MODEL_CALL', MODEL_CALL.startToCloseTimeout],
    ['CONVERSATION_LOCAL (the condenser)', CONVERSATION_LOCAL.startToCloseTimeout],
  ])('%s', (_name, backstop) => {
    expect(typeof backstop).toBe('number');
    for (const timeout of [DEFAULT_MODEL_TIMEOUT_MS, LOCAL_MODEL.timeoutMs, MAX_MODEL_TIMEOUT_MS]) expect(backstop as number).toBeGreaterThan(timeout);
  });
});
