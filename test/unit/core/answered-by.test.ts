import { answeredBy, answeredByText, describeOpenAiModels } from '../../../core/run/answered-by';

/*
 * Issue 43 §5: a "local" question answered by the offline worker in 5 s, and nothing in the output said so. The
 * outcome now says what graded and wrote, from the provider description the run recorded (producedBy).
 */

test('an OpenAI-compatible provider: the endpoint, GRADE_MODEL as grader, the answer\'s model as writer', () => {
  const models = `${describeOpenAiModels({ fast: 'qwen-1.5b', grade: 'qwen-1.5b', answer: undefined, host: '127.0.0.1:8012' })} [qwen-1.5b: json_schema, temperature 0]`;
  const by = answeredBy(models, 'qwen-1.5b');
  expect(by).toEqual({ provider: 'openai', endpoint: '127.0.0.1:8012', grader: 'qwen-1.5b', writer: 'qwen-1.5b', models });
  expect(answeredByText(by!)).toBe('openai @ 127.0.0.1:8012: qwen-1.5b (grader) · qwen-1.5b (writer)');
});

test('the offline policy: its version grades, its extractive answerer writes; no answer, no writer', () => {
  const by = answeredBy('offline-policy v3 (fit-1)', 'offline-policy v2 extractive');
  expect(answeredByText(by!)).toBe('offline-policy v3 (fit-1) (grader) · offline-policy v2 extractive (writer)');
  expect(answeredByText(answeredBy('offline-policy v2', null)!)).toBe('offline-policy v2 (grader)');
});

test('a run that recorded no provider says nothing', () => {
  expect(answeredBy(null, 'm')).toBeNull();
});
