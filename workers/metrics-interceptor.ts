import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import type { Context } from '@temporalio/activity';
import type { AuditBatch } from '../core/schemas/audit';
import type { RetrievalResult } from '../core/trace/writers';
import type { RagtimeInstruments } from '../runtime/metrics/ragtime-instruments';
import type { IngestFileData } from '../core/ingest/ingest-io';

/*
 * ragtime's metrics, read at the activity boundary: every attempt's duration, and from the activities' inputs and
 * results what each means (a model call and its model, a retrieval's stage timings, an ingested file's leaves, a
 * run's terminal audit event). The activities themselves stay unaware of metrics.
 */

/** The model behind each model activity, as the configuration names it (FAST_MODEL, GRADE_MODEL, ANSWER_MODEL). */
export type ModelsByActivity = Partial<Record<'planComplexity' | 'gradeEvidence' | 'planRewrite' | 'generateAnswer', string>>;

const MODEL_ACTIVITIES = new Set(['planComplexity', 'gradeEvidence', 'planRewrite', 'generateAnswer']);
const TERMINAL_EVENTS = new Set(['completed', 'failed', 'cancelled']);
const STAGES = ['embed', 'dense', 'bm25', 'fuse', 'merge', 'rerank'] as const;

class MetricsInbound implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly context: Context,
    private readonly instruments: RagtimeInstruments,
    private readonly models: ModelsByActivity,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.context.info.activityType;
    const started = performance.now();
    let outcome = 'failed';
    try {
      const result = await next(input);
      outcome = 'completed';
      this.recordResult(type, input.args[0], result);
      return result;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      this.instruments.activitySeconds.record(seconds, { activity: type, outcome });
      if (MODEL_ACTIVITIES.has(type)) {
        const model = this.models[type as keyof ModelsByActivity] ?? 'unknown';
        this.instruments.modelCalls.add(1, { activity: type, model, outcome });
        this.instruments.modelCallSeconds.record(seconds, { activity: type, model });
      }
    }
  }

  private recordResult(type: string, input: unknown, result: unknown): void {
    if (type === 'retrieve') {
      const data = (result as { data?: RetrievalResult } | undefined)?.data;
      const timings = data?.diagnostics?.timing_ms;
      const purpose = (input as { purpose?: string } | undefined)?.purpose ?? 'unknown';
      this.instruments.retrievals.add(1, { purpose, evidence: (data?.docs.length ?? 0) > 0 ? 'some' : 'none' });
      if (timings) {
        for (const stage of STAGES) {
          const ms = timings[stage];
          if (ms !== null) this.instruments.retrievalSeconds.record(ms / 1000, { stage });
        }
        this.instruments.retrievalSeconds.record(timings.total / 1000, { stage: 'total' });
      }
    } else if (type === 'ingestFile') {
      const data = result as Partial<IngestFileData> & { duration_ms?: number };
      this.instruments.ingestedFiles.add(1, { outcome: 'ingested' });
      if (typeof data.l3 === 'number') this.instruments.ingestedLeaves.add(data.l3);
      if (typeof data.duration_ms === 'number') this.instruments.ingestSeconds.record(data.duration_ms / 1000);
    } else if (type === 'recordAudit') {
      // A batch repeats the run's earlier events; the terminal one comes once, in the last batch of the run.
      const inserted = (result as { events?: number } | undefined)?.events ?? 0;
      if (inserted === 0) return;
      for (const event of (input as AuditBatch | undefined)?.events ?? []) {
        if (TERMINAL_EVENTS.has(event.event_type) && event.key === event.event_type) {
          this.instruments.runs.add(1, { route: String(event.detail.route ?? 'none'), status: event.event_type });
        }
      }
    }
  }
}

export function metricsActivityInterceptors(instruments: RagtimeInstruments, models: ModelsByActivity): ActivityInterceptorsFactory {
  return (context) => ({ inbound: new MetricsInbound(context, instruments, models) });
}
