import type { RagStep } from '../api';
import { formatMs } from './status-badge';

/** The live steps of a run (the spec's rag_step events), as they arrive over the progress stream. */
export function ProgressList({ steps, live }: { steps: RagStep[]; live: boolean }) {
  return (
    <ol className="progress" aria-live={live ? 'polite' : 'off'} aria-label="progress">
      {steps.map((step, i) => (
        <li key={i}>
          {/* As the asker reads it (RagStep.shown: English for an English question), else the spec's texts. */}
          <span aria-hidden="true">{step.icon}</span> {(step.shown ?? step).label}{(step.shown ?? step).detail ? <span className="muted"> {(step.shown ?? step).detail}</span> : null}
          <span className="muted"> · {formatMs(step.elapsed_ms)}</span>
        </li>
      ))}
      {live && <li className="muted">running…</li>}
    </ol>
  );
}
