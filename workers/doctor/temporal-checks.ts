import { type Connection } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { temporal } from '@temporalio/proto';
import type { RagConfig } from '../../core/config';
import { describeTemporalSecurity, explainConnectFailure, temporalConnectionOptions } from '../../runtime/temporal-connection';
import { workerKbOf } from '../../core/settings/worker-identity';
import type { CheckSpec } from './check-runner';
import { isUnreachable, oneLine, reasonOf, startHint } from './failure-text';
import { tcpConnect } from './tcp-connect';

const { TaskQueueKind, TaskQueueType } = temporal.api.enums.v1;
// gRPC status NOT_FOUND: the namespace does not exist.
const GRPC_NOT_FOUND = 5;

type TemporalSettings = RagConfig['temporal'];

/**
 * A connection with the options every ragtime process uses (runtime/temporal-connection.ts), closed when `use`
 * settles; one that completes after the check gave up is closed then.
 */
async function withConnection<T>(settings: TemporalSettings, timeoutMs: number, signal: AbortSignal, use: (connection: Connection) => Promise<T>): Promise<T> {
  await tcpConnect(settings.address, signal);
  const connecting = connectTemporal({ ...temporalConnectionOptions(settings), connectTimeout: timeoutMs }).catch(async (error: unknown) => {
    throw await explainConnectFailure(error, settings);
  });
  signal.addEventListener('abort', () => void connecting.then((connection) => connection.close()).catch(() => undefined), { once: true });
  const connection = await connecting;
  try {
    return await use(connection);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

const unreachable = (settings: TemporalSettings, error: unknown): string =>
  `Temporal at ${settings.address} is unreachable (${reasonOf(error)}): ${startHint('Temporal', settings.address, 'TEMPORAL_ADDRESS')}`;

/** Temporal: connect as clients and workers do, and describe the namespace. */
export function temporalCheck(settings: TemporalSettings, timeoutMs: number): CheckSpec {
  return {
    kind: 'temporal',
    target: settings.address,
    timeoutMs,
    run: (signal) =>
      withConnection(settings, timeoutMs, signal, async (connection) => {
        const reply = await connection.workflowService.describeNamespace({ namespace: settings.namespace });
        const security = settings.tls ? `, ${describeTemporalSecurity(settings)}` : '';
        return { detail: `namespace ${reply.namespaceInfo?.name ?? settings.namespace}${security}` };
      }),
    failure(error) {
      if ((error as { code?: unknown }).code === GRPC_NOT_FOUND) {
        return `namespace ${settings.namespace} does not exist on Temporal at ${settings.address}: set TEMPORAL_NAMESPACE to one that does, or create it (\`temporal operator namespace create ${settings.namespace}\`)`;
      }
      if (isUnreachable(error)) return unreachable(settings, error);
      return `Temporal at ${settings.address} refused (${oneLine(reasonOf(error))}): check TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and the TLS or API key settings (docs/DEPLOYMENT.md)`;
    },
  };
}

/**
 * A worker polls the task queue (as client/worker-check.ts asks before a run starts): Temporal lists the pollers it
 * saw in the last few minutes, so a worker stopped a moment ago still counts; an empty list is certain.
 */
export function workerCheck(settings: TemporalSettings, timeoutMs: number, shell: { kb: string; source: string }): CheckSpec {
  const where = `task queue ${settings.taskQueue}`;
  return {
    kind: 'worker',
    target: where,
    timeoutMs,
    run: (signal) =>
      withConnection(settings, timeoutMs, signal, async (connection) => {
        const reply = await connection.workflowService.describeTaskQueue({
          namespace: settings.namespace,
          taskQueue: { name: settings.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        });
        const identities = [...new Set(reply.pollers.map((poller) => poller.identity ?? '?'))];
        if (identities.length === 0) {
          return {
            ok: false,
            detail: `no ragtime worker polls ${where} on ${settings.address}: start one with \`npx ragtime worker\` (\`make demo\` runs one in the background)`,
          };
        }
        const shown = identities.slice(0, 3).join(', ') + (identities.length > 3 ? ', …' : '');
        // Issue 33 §1: `ask` without --kb reads the worker's default, `search` and `docs` this shell's; they must agree.
        const other = identities.map(workerKbOf).find((kb) => kb !== null && kb !== shell.kb);
        if (other !== undefined && other !== null) {
          return {
            ok: false,
            detail:
              `a worker's default knowledge base is ${other} (${shown}), this shell's is ${shell.kb} (${shell.source}): ask would read ${other}, ` +
              `search and docs ${shell.kb}; export RAGTIME_KB=${other} here, or restart the worker with this shell's settings (\`scripts/services.sh restart worker\`)`,
          };
        }
        return { detail: `${identities.length} worker${identities.length === 1 ? '' : 's'} polling (${shown})` };
      }),
    failure: (error) =>
      isUnreachable(error)
        ? `cannot ask about ${where}: ${unreachable(settings, error)}`
        : `cannot ask Temporal about ${where} (${oneLine(reasonOf(error))}): fix what the temporal check reports first`,
  };
}
