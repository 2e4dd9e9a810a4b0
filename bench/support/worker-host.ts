import { fork, type ChildProcess } from 'node:child_process';
import { createBenchWorker, effectiveTuning, type BenchWorkerConfig } from './bench-worker';
import type { HostRequest, WorkerReply, WorkerUsage } from './worker-process';

/*
 * A bench worker as the benchmark sees it, either in its own process (the default: closer to production, and the
 * load generator's CPU is not the worker's) or inside the benchmark process.
 */

export type WorkerMode = 'process' | 'inproc';

export type BenchWorkerHandle = {
  mode: WorkerMode;
  pid: number;
  tuning: Record<string, unknown>;
  usage(): Promise<WorkerUsage>;
  /** Forces a full GC when the worker runs with --expose-gc, then reports usage. */
  gcThenUsage(): Promise<WorkerUsage>;
  stop(): Promise<void>;
};

/** `cpuProfileDir`: run the worker process with --cpu-prof, one .cpuprofile per thread written there on exit. */
export async function startBenchWorker(
  mode: WorkerMode,
  config: BenchWorkerConfig,
  options: { cpuProfileDir?: string } = {},
): Promise<BenchWorkerHandle> {
  if (mode === 'inproc' && options.cpuProfileDir) throw new Error('--worker-cpu-prof needs --worker process');
  return mode === 'process' ? startWorkerProcess(config, options.cpuProfileDir) : startInProcessWorker(config);
}

async function startWorkerProcess(config: BenchWorkerConfig, cpuProfileDir: string | undefined): Promise<BenchWorkerHandle> {
  // The parent runs under tsx, so its execArgv carries tsx's loader; the child gets the same plus --expose-gc.
  const profiling = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
  const child: ChildProcess = fork(require.resolve('./worker-process'), [JSON.stringify(config)], {
    // thread-heap-hook is inherited by the worker's threads, so the workflow thread can be asked to GC and report.
    // --require (with tsx's CommonJS hook first) also runs in worker threads, where tsx's --import loader does not.
    execArgv: [...process.execArgv, '--expose-gc', '--require', require.resolve('tsx/cjs'), '--require', require.resolve('./thread-heap-hook'), ...profiling],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  const next = (type: WorkerReply['type']): Promise<WorkerReply> =>
    new Promise((resolve, reject) => {
      const onMessage = (reply: WorkerReply) => {
        if (reply.type === 'failed') {
          child.off('message', onMessage);
          reject(new Error(`bench worker process failed: ${reply.message}`));
        } else if (reply.type === type) {
          child.off('message', onMessage);
          resolve(reply);
        }
      };
      child.on('message', onMessage);
      void exit.then(() => reject(new Error(`bench worker process exited while waiting for "${type}"`)));
    });
  const ready = await next('ready');
  if (ready.type !== 'ready') throw new Error('unreachable');
  const ask = async (request: HostRequest): Promise<WorkerUsage> => {
    const reply = next('usage');
    child.send(request);
    const usage = await reply;
    if (usage.type !== 'usage') throw new Error('unreachable');
    return usage;
  };
  return {
    mode: 'process',
    pid: ready.pid,
    tuning: ready.tuning,
    usage: () => ask({ type: 'usage' }),
    gcThenUsage: () => ask({ type: 'gc' }),
    async stop() {
      if (exited) return;
      child.send({ type: 'stop' } satisfies HostRequest);
      await exit;
    },
  };
}

async function startInProcessWorker(config: BenchWorkerConfig): Promise<BenchWorkerHandle> {
  const { worker, connection, traffic, closeStores } = await createBenchWorker(config);
  const running = worker.run();
  const usage = async (): Promise<WorkerUsage> => {
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    return {
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      cpuMs: (cpu.user + cpu.system) / 1000,
      cachedWorkflows: worker.getStatus().numCachedWorkflows,
      gcAvailable: typeof global.gc === 'function',
      payloads: structuredClone(traffic),
    };
  };
  return {
    mode: 'inproc',
    pid: process.pid,
    tuning: effectiveTuning(worker),
    usage,
    async gcThenUsage() {
      global.gc?.();
      return usage();
    },
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
      await closeStores();
    },
  };
}
