import { renderModelCalls } from '../../../cli/render/model-calls';
import type { RunModelCall } from '../../../core/schemas/run-detail';

const call = (over: Partial<RunModelCall>): RunModelCall => ({
  workflowId: 'rag-s-1',
  activity: 'gradeEvidence',
  schema: 'evidence_grade',
  model: 'deepseek-reasoner',
  endpoint: 'api.deepseek.com',
  outputMode: 'json_object',
  temperature: 0,
  requests: 1,
  steps: [],
  ...over,
});

test('ragtime trace: each model call with its rung, temperature, requests and what changed (issue 24)', () => {
  expect(
    renderModelCalls([
      call({
        requests: 4,
        steps: [
          { kind: 'output_mode', from: 'json_schema', to: 'tools', reason: '400 This response_format type is unavailable now' },
          { kind: 'output_mode', from: 'tools', to: 'json_object', reason: '400 Thinking mode does not support this tool_choice' },
          { kind: 'reask', from: 'json_object', to: 'json_object', reason: 'deepseek-reasoner returned an empty reply' },
        ],
      }),
      call({ workflowId: 'rag-s-1/sub-2', activity: 'planRewrite', schema: 'rewrite_plan', temperature: null }),
    ]),
  ).toMatchInlineSnapshot(`
[
  "model calls: 2",
  "  gradeEvidence evidence_grade: deepseek-reasoner @ api.deepseek.com, json_object, temperature 0, 4 requests; json_schema → tools (400 This response_format type is unavailable now); tools → json_object (400 Thinking mode does not support this tool_choice); re-asked (deepseek-reasoner returned an empty reply)",
  "  planRewrite [sub-2] rewrite_plan: deepseek-reasoner @ api.deepseek.com, json_object, no temperature, 1 request",
]
`);
  expect(renderModelCalls([])).toEqual([]);
});
