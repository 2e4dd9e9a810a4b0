import { loadConfig } from '../../runtime/load-config';
import { securedConnection } from '../../runtime/temporal-connection';
import { parseArgs } from 'node:util';
import type { WorkerTuning } from './bench-worker';
import type { WorkerMode } from './worker-host';

/** Worker flags shared by the benchmarks. Unset flags keep the SDK defaults, as the production worker does. */
export const WORKER_FLAGS = {
  worker: { type: 'string', default: 'process' },
  'max-cached': { type: 'string' },
  'max-wft': { type: 'string' },
  'max-activities': { type: 'string' },
  'wft-pollers': { type: 'string' },
  'activity-pollers': { type: 'string' },
  'no-reuse-v8': { type: 'boolean', default: false },
  'worker-cpu-prof': { type: 'string' },
  'preload-modules': { type: 'string' },
  'max-eager-activities': { type: 'string' },
} as const;

export const WORKER_FLAGS_HELP = `worker (defaults: the SDK's, as in production):
  --worker process|inproc     worker in its own process (default) or in the benchmark process
  --max-cached N              maxCachedWorkflows
  --max-wft N                 maxConcurrentWorkflowTaskExecutions
  --max-activities N          maxConcurrentActivityTaskExecutions
  --wft-pollers N             workflow task pollers (fixed maximum)
  --activity-pollers N        activity task pollers (fixed maximum)
  --no-reuse-v8               reuseV8Context: false
  --preload-modules a,b       bundlerOptions.preloadModules (experiment; e.g. zod)
  --max-eager-activities N    maxEagerActivityReservationsPerWorkflowTask (SDK default 3; 0: no eager activities)
  --worker-cpu-prof DIR       profile the worker process (node --cpu-prof; one .cpuprofile per thread)`;

export function positiveInt(name: string, text: string | undefined, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new Error(`--${name} is required`);
    return fallback;
  }
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return value;
}

const optionalInt = (name: string, text: string | undefined): number | undefined =>
  text === undefined ? undefined : positiveInt(name, text);

type WorkerFlagValues = {
  worker?: string;
  'max-cached'?: string;
  'max-wft'?: string;
  'max-activities'?: string;
  'wft-pollers'?: string;
  'activity-pollers'?: string;
  'no-reuse-v8'?: boolean;
  'preload-modules'?: string;
  'max-eager-activities'?: string;
};

export function workerFlags(values: WorkerFlagValues): { mode: WorkerMode; tuning: WorkerTuning } {
  const mode = values.worker ?? 'process';
  if (mode !== 'process' && mode !== 'inproc') throw new Error(`--worker must be process or inproc, got ${JSON.stringify(mode)}`);
  const tuning: WorkerTuning = {
    maxCachedWorkflows: optionalInt('max-cached', values['max-cached']),
    maxConcurrentWorkflowTaskExecutions: optionalInt('max-wft', values['max-wft']),
    maxConcurrentActivityTaskExecutions: optionalInt('max-activities', values['max-activities']),
    workflowTaskPollers: optionalInt('wft-pollers', values['wft-pollers']),
    activityTaskPollers: optionalInt('activity-pollers', values['activity-pollers']),
    ...(values['no-reuse-v8'] ? { reuseV8Context: false } : {}),
    ...(values['preload-modules'] ? { preloadModules: values['preload-modules'].split(',').map((name) => name.trim()) } : {}),
    maxEagerActivities: optionalInt('max-eager-activities', values['max-eager-activities']),
  };
  for (const key of Object.keys(tuning) as Array<keyof WorkerTuning>) if (tuning[key] === undefined) delete tuning[key];
  return { mode, tuning };
}

export { parseArgs };

/** The dev server the benchmarks use: TEMPORAL_ADDRESS, as everywhere in ragtime. */
export const temporalAddress = (): string => process.env.TEMPORAL_ADDRESS?.trim() || '127.0.0.1:7233';

/** TLS and API key for a secured cluster (TEMPORAL_TLS_*, TEMPORAL_API_KEY), as the worker and CLI read them. */
export const temporalSecurity = () => securedConnection(loadConfig(process.env).temporal);
