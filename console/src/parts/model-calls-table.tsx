import type { RunModelCall } from '../../../core/schemas/run-detail';

const stepText = (step: RunModelCall['steps'][number]) =>
  step.kind === 'reask' ? `re-asked: ${step.reason}` : step.kind === 'temperature' ? `temperature ${step.from} dropped: ${step.reason}` : `${step.from} → ${step.to}: ${step.reason}`;

/** How each model call asked (issue 24): the structured-output rung, the temperature, the requests and what changed. */
export function ModelCallsTable({ calls }: { calls: RunModelCall[] }) {
  if (calls.length === 0) return <p className="muted">No model call recorded (the offline policy provider calls no model).</p>;
  return (
    <div className="table-scroll">
      <table className="model-calls">
        <thead><tr><th scope="col">activity</th><th scope="col">schema</th><th scope="col">model</th><th scope="col">output mode</th><th scope="col">temperature</th><th scope="col">requests</th><th scope="col">what changed</th></tr></thead>
        <tbody>
          {calls.map((call, i) => (
            <tr key={`${call.workflowId}-${i}`}>
              <td>{call.activity}</td><td>{call.schema}</td><td>{call.model} @ {call.endpoint}</td><td>{call.outputMode}</td>
              <td>{call.temperature === null ? 'none' : call.temperature}</td><td>{call.requests}</td>
              <td>{call.steps.length === 0 ? '—' : call.steps.map(stepText).join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
