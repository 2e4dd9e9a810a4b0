import { performance } from 'node:perf_hooks';
import type { DoctorCheck, DoctorCheckKind } from '../../core/schemas/doctor';
import type { ModelPlan } from '../../core/schemas/model-call';

/*
 * How one doctor check runs (issue 24 §3): one tiny call under a deadline, timed, and turned into a DoctorCheck
 * whether it answered, failed or never answered. A check never throws: a dead service is a line, not a crash.
 */

/** A check that did not answer in time; `signal.reason` of the call it aborted. */
export class CheckTimeout extends Error {
  override readonly name = 'CheckTimeout';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${formatSeconds(timeoutMs)}`);
  }
}

export const formatSeconds = (ms: number): string => (ms < 1_000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`);

/** What a call found: ok unless it says otherwise (a reply that shows a problem, e.g. no worker polling). */
export type CheckFinding = { ok?: boolean; detail: string; plan?: ModelPlan };

export type CheckSpec = {
  kind: DoctorCheckKind;
  /** What is checked, without credentials: an address, a folder, a model. */
  target: string;
  timeoutMs: number;
  /** The one call; `signal` aborts it when the time is up (calls that take no signal are abandoned). */
  run(signal: AbortSignal): Promise<CheckFinding>;
  /** The failure line from what was thrown (a CheckTimeout when the time ran out): what failed and the fix. */
  failure(error: unknown): string;
};

/** Runs `run` until `timeoutMs`; then aborts its signal and rejects with a CheckTimeout (a later settle is ignored). */
export async function withTimeout<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const timeout = new CheckTimeout(timeoutMs);
      controller.abort(timeout);
      reject(timeout);
    }, timeoutMs);
  });
  try {
    // race subscribes to both, so a rejection of `run` after the deadline is handled, not left unhandled.
    return await Promise.race([run(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Elapsed milliseconds since `started` (performance.now()), whole. */
export const elapsedMs = (started: number): number => Math.max(0, Math.round(performance.now() - started));

/** One check, run to a DoctorCheck. */
export async function runCheck(spec: CheckSpec): Promise<DoctorCheck> {
  const started = performance.now();
  const base = { kind: spec.kind, target: spec.target };
  try {
    const finding = await withTimeout(spec.timeoutMs, (signal) => spec.run(signal));
    return { ...base, ok: finding.ok ?? true, detail: finding.detail, ms: elapsedMs(started), ...(finding.plan ? { plan: finding.plan } : {}) };
  } catch (error) {
    return { ...base, ok: false, detail: describeFailure(spec, error), ms: elapsedMs(started) };
  }
}

function describeFailure(spec: CheckSpec, error: unknown): string {
  try {
    return spec.failure(error);
  } catch {
    // A failure line that cannot be built must not hide the failure itself.
    return `${spec.kind} check failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}
