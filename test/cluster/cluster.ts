import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/services';

/*
 * The Temporal cluster of scripts/cluster.sh, for the tests of test/cluster: its address, and its processes by their
 * pid files (to SIGKILL one, as a crash would, and bring it back with `up`, as an operator would).
 */

const env = (name: string, fallback: string) => (process.env[name]?.trim() ? (process.env[name] as string).trim() : fallback);

/** The frontend, as scripts/cluster/env.sh sets it. */
export const CLUSTER_ADDRESS = env('CLUSTER_TEMPORAL_ADDRESS', `127.0.0.1:${env('CLUSTER_TEMPORAL_PORT', '7633')}`);
export const CLUSTER_NAMESPACE = env('CLUSTER_NAMESPACE', env('TEMPORAL_NAMESPACE', 'default'));
const DATA_DIR = env('CLUSTER_DATA_DIR', path.join(path.resolve(REPO_ROOT, env('RAGTIME_DATA_DIR', '.data')), 'cluster'));
/** The Temporal Web UI beside the cluster and ragtime's codec server for it (scripts/cluster/web-ui.sh). */
export const CLUSTER_UI_URL = `http://127.0.0.1:${env('CLUSTER_UI_PORT', '8633')}`;
export const CLUSTER_CODEC_URL = `http://127.0.0.1:${env('CLUSTER_CODEC_PORT', '8634')}`;
/** The keyring that codec server decrypts with: workers encrypt with it (RAGTIME_CODEC_KEY_FILE) to be read there. */
export const CLUSTER_CODEC_KEY_FILE = env('CLUSTER_CODEC_KEY_FILE', path.join(DATA_DIR, 'codec-keys.json'));

export type ClusterService = 'frontend' | 'history' | 'matching' | 'worker';

/** Runs `scripts/cluster.sh <args>`; resolves to its output and exit code (never rejects on a non-zero exit). */
export function clusterScript(args: string[], timeoutMs = 20 * 60_000): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('bash', [path.join(REPO_ROOT, 'scripts', 'cluster.sh'), ...args], { cwd: REPO_ROOT, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** `scripts/cluster.sh up`, failing with its output. */
export async function clusterUp(): Promise<string> {
  const { code, output } = await clusterScript(['up']);
  if (code !== 0) throw new Error(`scripts/cluster.sh up failed (exit ${code}):\n${output}`);
  return output;
}

/** The pid of a running cluster service, from its pid file. */
export function pidOf(service: ClusterService): number {
  const pid = Number(readFileSync(path.join(DATA_DIR, 'run', `${service}.pid`), 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no pid in ${DATA_DIR}/run/${service}.pid`);
  return pid;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGKILL: the service stops existing (no shard hand-off, no goodbye to the ring). Resolves once it is gone. */
export async function killService(service: ClusterService): Promise<void> {
  const pid = pidOf(service);
  process.kill(pid, 'SIGKILL');
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}
