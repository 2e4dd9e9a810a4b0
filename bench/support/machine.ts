import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import * as os from 'node:os';
import type { Connection } from '@temporalio/client';

/*
 * What a benchmark reports about where it ran, and the CPU time of the processes involved (client, worker, dev
 * server), read from /proc so that a number can be traced to the process that spent it.
 */

export type MachineInfo = {
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  temporalServer: string;
  temporalCli: string;
  serverPid: number | null;
};

const firstLine = (text: string): string => text.split('\n')[0]?.trim() ?? '';

/** The pid that listens on the dev server's port, from `ss` (null when it cannot be told). */
export function listeningPid(address: string): number | null {
  const port = address.split(':').pop();
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    const match = /pid=(\d+)/.exec(out);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

export async function machineInfo(connection: Connection, address: string): Promise<MachineInfo> {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const serverPid = listeningPid(address);
  let temporalCli = 'unknown';
  if (serverPid) {
    try {
      temporalCli = firstLine(execFileSync(readlinkSync(`/proc/${serverPid}/exe`), ['--version'], { encoding: 'utf8' }));
    } catch {
      temporalCli = 'unknown (cannot run the server binary with --version)';
    }
  }
  const system = await connection.workflowService.getSystemInfo({});
  return {
    nproc: os.cpus().length,
    cpuModel: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    temporalServer: system.serverVersion ?? 'unknown',
    temporalCli,
    serverPid,
  };
}

/** Which code was measured: the commit, and whether the graph's code differs from it (a benchmark of a dirty tree). */
export function sourceInfo(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    const changed = git('status', '--porcelain', '--', 'core', 'workflows', 'activities', 'client', 'workers').split('\n').filter(Boolean).length;
    return `git ${commit}${changed ? ` + ${changed} uncommitted changes under core/ workflows/ activities/ client/ workers/` : ' (clean)'}`;
  } catch {
    return 'not a git checkout';
  }
}

export function describeMachine(info: MachineInfo): string {
  return [
    `machine: ${info.nproc} CPUs (${info.cpuModel}), ${info.memoryGiB} GiB RAM, Node ${info.node}`,
    `temporal: server ${info.temporalServer}; ${info.temporalCli}; dev server pid ${info.serverPid ?? 'unknown'}`,
    `source: ${sourceInfo()}`,
  ].join('\n');
}

export const loadAverage = (): string => os.loadavg().map((value) => value.toFixed(2)).join(' ');

const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms; null when /proc cannot be read. */
export function processCpuMs(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" that closes the command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Fields of /proc/PID/stat after the command name (field 3 is at index 0), or null. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU ms of a server and its children (PostgreSQL's postmaster and a backend per connection): the server's own time,
 * its waited-for children's (cutime + cstime: backends that exited), and every live descendant's user + system time.
 */
export function processTreeCpuMs(pid: number | null): number | null {
  if (pid === null) return null;
  const own = statFields(pid);
  if (!own) return null;
  const ticks = (fields: string[], from: number, to: number) => fields.slice(from, to + 1).reduce((sum, value) => sum + Number(value), 0);
  let total = ticks(own, 11, 14);
  const parents = new Set([pid]);
  // /proc lists pids in ascending order; children have higher pids than their parent here (no pid wrap-around assumed).
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && parents.has(Number(fields[1]))) {
      parents.add(Number(entry));
      total += ticks(fields, 11, 12);
    }
  }
  return (total * 1000) / TICKS_PER_SECOND;
}

/** CPU ms of this process (client side), from Node's own counter. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
