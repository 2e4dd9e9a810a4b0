import type { Stage } from '../../../core/schemas/run-detail';
import { formatMs } from './status-badge';

const ROW_H = 22;
const LABEL_W = 170;
const CHART_W = 520;

/**
 * The run's activities and sub-question children on one time axis: the light part of a bar is the wait between
 * scheduled and started (queue time), the dark part the work, started to closed.
 */
export function Waterfall({ stages, durationMs }: { stages: Stage[]; durationMs: number }) {
  if (stages.length === 0) return <p className="muted">No stages recorded yet.</p>;
  const end = Math.max(durationMs, ...stages.map((stage) => stage.closedAtMs ?? stage.startedAtMs ?? stage.scheduledAtMs), 1);
  const x = (ms: number) => LABEL_W + (ms / end) * CHART_W;
  const height = stages.length * ROW_H + 24;
  return (
    <div className="graph-scroll">
      <svg className="waterfall" role="img" aria-label={`timing waterfall of ${stages.length} stages over ${formatMs(end)}`} viewBox={`0 0 ${LABEL_W + CHART_W + 70} ${height}`} width={LABEL_W + CHART_W + 70} height={height}>
        {stages.map((stage, i) => {
          const y = i * ROW_H + 4;
          const started = stage.startedAtMs ?? stage.scheduledAtMs;
          const closed = stage.closedAtMs ?? end;
          const label = `${stage.type}${stage.attempt > 1 ? ` (attempt ${stage.attempt})` : ''}`;
          return (
            <g key={`${stage.workflowId}-${stage.type}-${i}`} className={`stage stage-${stage.status}`} data-stage={stage.type}>
              <title>{`${label}: scheduled ${formatMs(stage.scheduledAtMs)}, started ${formatMs(stage.startedAtMs)}, closed ${formatMs(stage.closedAtMs)} · ${stage.status}`}</title>
              <text x="0" y={y + 14} className="stage-label">{label.length > 24 ? `${label.slice(0, 23)}…` : label}</text>
              <rect x={x(stage.scheduledAtMs)} y={y + 3} width={Math.max(1, x(started) - x(stage.scheduledAtMs))} height={ROW_H - 8} className="bar-wait" />
              <rect x={x(started)} y={y + 3} width={Math.max(2, x(closed) - x(started))} height={ROW_H - 8} className="bar-work" />
              <text x={x(closed) + 4} y={y + 14} className="stage-ms">{formatMs(closed - stage.scheduledAtMs)}</text>
            </g>
          );
        })}
        <line x1={LABEL_W} x2={LABEL_W + CHART_W} y1={height - 14} y2={height - 14} className="axis" />
        <text x={LABEL_W} y={height - 2} className="stage-ms">0</text>
        <text x={LABEL_W + CHART_W} y={height - 2} className="stage-ms" textAnchor="end">{formatMs(end)}</text>
      </svg>
    </div>
  );
}
