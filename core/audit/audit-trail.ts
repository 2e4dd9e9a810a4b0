import type { AuditBatch, DiagnosisEvent, ToolInvocationRecord } from '../schemas/audit';
import type { RetrievalResult } from '../trace/writers';
import {
  answerReceivedEvent,
  answerWrittenEvent,
  cancelledEvent,
  completedEvent,
  failedEvent,
  hitlRequestedEvent,
  runStartedEvent,
} from './diagnosis-events';
import { buildToolInvocation, type AuditIds, type InvocationGrade, type InvocationStage } from './tool-invocation';

type Open = { stage: InvocationStage; step: string; query: string; startedAt: number; retrieval: RetrievalResult | null };
type Keyed<T> = (ids: AuditIds) => T;

/**
 * What a run has to record in the audit store and has not sent yet (DESIGN §5 layer B). The graph nodes report each
 * knowledge-tool invocation (begin → retrieved → graded), the workflow reports the timeline, and at each settle
 * point the workflow takes the pending batch for the recordAudit activity. Rows are keyed with the run's ids when
 * taken, so a sub-question's record can be adopted by its parent under the parent's ids.
 *
 * Pure bookkeeping: it creates no commands, so the graph nodes fill it whether or not the run records audit rows.
 */
export class AuditTrail {
  private open: Open | null = null;
  private invocations: Array<Keyed<ToolInvocationRecord>> = [];
  private events: Array<Keyed<DiagnosisEvent>> = [];
  private subIndex = 0;
  private round = 0;

  /** This run answers sub-question `index` (1-based): its invocation is step "sub-<index>". */
  forSubQuestion(index: number): void {
    this.subIndex = index;
  }

  /** A retrieval starts (workflow time `at`). Steps: initial, rewritten, sub-<i>, hitl-<round>. */
  beginInvocation(stage: InvocationStage, query: string, at: number): void {
    this.open = { stage, step: this.stepOf(stage), query, startedAt: at, retrieval: null };
  }

  retrieved(result: RetrievalResult): void {
    if (this.open) this.open.retrieval = result;
  }

  /** The grade of the open invocation: the row is complete. */
  graded(grade: InvocationGrade, at: number): void {
    this.close(grade, null, at);
  }

  /** The run failed during the open invocation (if any): a row with success false and the error code. */
  abandonInvocation(errorCode: string, at: number): void {
    this.close(null, errorCode, at);
  }

  /** A sub-question's record, re-keyed with this run's ids under `step` when taken. */
  adopt(record: ToolInvocationRecord, step: string): void {
    this.invocations.push((ids) => ({ ...record, session_id: ids.sessionId, workflow_id: ids.workflowId, run_id: ids.runId, step }));
  }

  runStarted(at: number, facts: Parameters<typeof runStartedEvent>[2]): void {
    this.events.push((ids) => runStartedEvent(ids, at, facts));
  }

  hitlRequested(at: number, facts: Parameters<typeof hitlRequestedEvent>[2]): void {
    this.events.push((ids) => hitlRequestedEvent(ids, at, facts));
  }

  /** An answer for `round` was taken: the next targeted retrieval is step "hitl-<round>". */
  answerReceived(at: number, facts: Parameters<typeof answerReceivedEvent>[2]): void {
    this.round = facts.round;
    this.events.push((ids) => answerReceivedEvent(ids, at, facts));
  }

  answerWritten(at: number, facts: Parameters<typeof answerWrittenEvent>[2]): void {
    this.events.push((ids) => answerWrittenEvent(ids, at, facts));
  }

  completed(at: number, facts: Parameters<typeof completedEvent>[2]): void {
    this.events.push((ids) => completedEvent(ids, at, facts));
  }

  failed(at: number, facts: Parameters<typeof failedEvent>[2]): void {
    this.abandonInvocation(facts.errorType, at);
    this.events.push((ids) => failedEvent(ids, at, facts));
  }

  /** The run was cancelled from outside (an open invocation is closed as failed with CANCELLED). */
  cancelled(at: number, facts: Parameters<typeof cancelledEvent>[2]): void {
    this.abandonInvocation('CANCELLED', at);
    this.events.push((ids) => cancelledEvent(ids, at, facts));
  }

  hasPending(): boolean {
    return this.invocations.length > 0 || this.events.length > 0;
  }

  /** Everything not taken yet, keyed with `ids`, in the order it happened; null when there is nothing. */
  take(ids: AuditIds): AuditBatch | null {
    if (!this.hasPending()) return null;
    const batch = { invocations: this.invocations.map((row) => row(ids)), events: this.events.map((row) => row(ids)) };
    this.invocations = [];
    this.events = [];
    return batch;
  }

  /** Puts back a batch that could not be recorded, ahead of what came since, to be sent at the next settle point. */
  requeue(batch: AuditBatch): void {
    this.invocations = [...batch.invocations.map((row) => () => row), ...this.invocations];
    this.events = [...batch.events.map((row) => () => row), ...this.events];
  }

  private close(grade: InvocationGrade | null, errorCode: string | null, at: number): void {
    const open = this.open;
    if (!open) return;
    this.open = null;
    this.invocations.push((ids) =>
      buildToolInvocation(ids, { ...open, grade, endedAt: at, errorCode }),
    );
  }

  private stepOf(stage: InvocationStage): string {
    switch (stage) {
      case 'sub_question':
        return `sub-${this.subIndex}`;
      case 'hitl_targeted':
        return `hitl-${this.round}`;
      default:
        return stage;
    }
  }
}
