import { type Connection } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import type { RagConfig } from '../../core/config';
import { describeTemporalSecurity, explainConnectFailure, temporalConnectionOptions } from '../../runtime/temporal-connection';
import { LIVE_POLLER_MS, livePollers, type SeenPoller } from '../../core/settings/task-queue-pollers';
import { workerKbOf, workerProviderOf } from '../../core/settings/worker-identity';
import { describePollers } from '../task-queue-pollers';
import type { CheckSpec } from './check-runner';
import { isUnreachable, oneLine, reasonOf, startHint } from './failure-text';
import { tcpConnect } from './tcp-connect';

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
 * What the worker check says of a task queue's pollers (issue 43 §5): only those seen within LIVE_POLLER_MS poll —
 * Temporal lists a worker stopped minutes ago too, and `doctor` counted it. Each live worker's default knowledge base
 * must be this shell's, and the providers they name are shown.
 */
export function workerCheckResult(
  pollers: readonly SeenPoller[],
  nowMs: number,
  where: { address: string; taskQueue: string },
  shell: { kb: string; source: string },
): { ok?: boolean; detail: string } {
  const queue = `task queue ${where.taskQueue}`;
  const live = livePollers(pollers, nowMs);
  const stopped = pollers.length - live.length;
  const stoppedNote = stopped === 0 ? '' : `; ${stopped} stopped worker${stopped === 1 ? '' : 's'} not counted (not seen for over ${LIVE_POLLER_MS / 1000} s)`;
  const identities = [...new Set(live.map((poller) => poller.identity))];
  if (identities.length === 0) {
    return {
      ok: false,
      detail: `no ragtime worker polls ${queue} on ${where.address}${stoppedNote}: start one with \`npx ragtime worker\` (\`make demo\` runs one in the background)`,
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
  // Issue 43 §5: workers of different providers on one queue answer questions by either, silently.
  const providers = [...new Set(identities.map(workerProviderOf).filter((provider): provider is string => provider !== null))];
  if (providers.length > 1) {
    return { ok: false, detail: `workers of ${providers.length} model providers (${providers.join(', ')}) poll ${queue}: a question goes to either (${shown}); stop one` };
  }
  return { detail: `${identities.length} worker${identities.length === 1 ? '' : 's'} polling (${shown})${stoppedNote}` };
}

/** A worker polls the task queue (as client/worker-check.ts asks before a run starts), seen within LIVE_POLLER_MS. */
export function workerCheck(settings: TemporalSettings, timeoutMs: number, shell: { kb: string; source: string }): CheckSpec {
  const where = `task queue ${settings.taskQueue}`;
  return {
    kind: 'worker',
    target: where,
    timeoutMs,
    run: (signal) =>
      withConnection(settings, timeoutMs, signal, async (connection) =>
        workerCheckResult(await describePollers(connection.workflowService, settings), Date.now(), settings, shell),
      ),
    failure: (error) =>
      isUnreachable(error)
        ? `cannot ask about ${where}: ${unreachable(settings, error)}`
        : `cannot ask Temporal about ${where} (${oneLine(reasonOf(error))}): fix what the temporal check reports first`,
  };
}
