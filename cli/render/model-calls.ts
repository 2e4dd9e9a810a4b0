import type { RunModelCall } from '../../core/schemas/run-detail';

/** One step of a call, short: "json_schema → tools (400 This response_format type is unavailable now)". */
const stepText = (step: RunModelCall['steps'][number]) =>
  step.kind === 'reask' ? `re-asked (${step.reason})` : step.kind === 'temperature' ? `temperature ${step.from} dropped (${step.reason})` : `${step.from} → ${step.to} (${step.reason})`;

/**
 * `ragtime trace`: how each model call of the run asked (issue 24): the activity, the schema, the model and its
 * endpoint, the rung and temperature of the reply, how many requests it took and what changed on the way. Nothing
 * for a run of the offline provider, which calls no model.
 */
export function renderModelCalls(calls: readonly RunModelCall[]): string[] {
  if (calls.length === 0) return [];
  return [
    `model calls: ${calls.length}`,
    ...calls.map((call) => {
      const temperature = call.temperature === null ? 'no temperature' : `temperature ${call.temperature}`;
      const steps = call.steps.length > 0 ? `; ${call.steps.map(stepText).join('; ')}` : '';
      const child = call.workflowId.includes('/sub-') ? ` [${call.workflowId.slice(call.workflowId.lastIndexOf('/') + 1)}]` : '';
      return `  ${call.activity}${child} ${call.schema}: ${call.model} @ ${call.endpoint}, ${call.outputMode}, ${temperature}, ${call.requests} request${call.requests === 1 ? '' : 's'}${steps}`;
    }),
  ];
}
