import { ENV_DEFAULTS, parseConfig } from '../../../core/config';
import { isRagError } from '../../../core/errors';
import { DEFAULT_SPECULATION, speculatesAt, speculationReport } from '../../../core/schemas/speculation';

describe('SPECULATION (issue 17 §2)', () => {
  test('unset or blank: the default chosen from the measurements', () => {
    expect(ENV_DEFAULTS.SPECULATION).toBe(DEFAULT_SPECULATION);
    expect(parseConfig({}).speculation).toBe(DEFAULT_SPECULATION);
    expect(parseConfig({ SPECULATION: '  ' }).speculation).toBe(DEFAULT_SPECULATION);
  });

  test('each level is read, case and spaces aside', () => {
    expect(parseConfig({ SPECULATION: 'off' }).speculation).toBe('off');
    expect(parseConfig({ SPECULATION: ' Retrieve ' }).speculation).toBe('retrieve');
    expect(parseConfig({ SPECULATION: 'GRADE' }).speculation).toBe('grade');
    expect(parseConfig({ SPECULATION: 'answer' }).speculation).toBe('answer');
    expect(parseConfig({ SPECULATION: 'rewrite' }).speculation).toBe('rewrite');
  });

  test('an unknown level is refused, naming the levels', () => {
    let message = '';
    try {
      parseConfig({ SPECULATION: 'all' });
    } catch (error) {
      if (!isRagError(error)) throw error;
      message = error.message;
    }
    expect(message).toContain(`SPECULATION="all" is not one of off, retrieve, grade, answer, rewrite: set one, or unset it to use the default ${DEFAULT_SPECULATION}`);
  });

  test('each level includes the ones before it', () => {
    expect(['retrieve', 'grade', 'answer'].map((step) => speculatesAt('off', step as 'retrieve'))).toEqual([false, false, false]);
    expect(['retrieve', 'grade', 'answer'].map((step) => speculatesAt('retrieve', step as 'retrieve'))).toEqual([true, false, false]);
    expect(['retrieve', 'grade', 'answer'].map((step) => speculatesAt('grade', step as 'retrieve'))).toEqual([true, true, false]);
    expect(['retrieve', 'grade', 'answer', 'rewrite'].map((step) => speculatesAt('answer', step as 'retrieve'))).toEqual([true, true, true, false]);
    expect(['retrieve', 'grade', 'answer', 'rewrite'].map((step) => speculatesAt('rewrite', step as 'retrieve'))).toEqual([true, true, true, true]);
  });

  test('the report counts what was used and what was wasted', () => {
    const report = speculationReport('answer', [
      { kind: 'retrieve', question: 'q', outcome: 'discarded', reason: 'planner said complex', modelCalls: 0, ms: 40 },
      { kind: 'grade', question: 'q', outcome: 'discarded', reason: 'planner said complex', modelCalls: 1, ms: 400 },
      { kind: 'answer', question: 'q', outcome: 'used', reason: null, modelCalls: 1, ms: 410 },
    ]);
    expect(report).toMatchObject({ level: 'answer', used: 1, discarded: 2, wastedModelCalls: 1 });
  });
});
