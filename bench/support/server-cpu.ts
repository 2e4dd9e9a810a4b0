import { readFileSync, readdirSync } from 'node:fs';
import { listeningPid } from './machine';

/*
 * The CPU time a Temporal server spends, read from /proc before and after a load: the dev server is one process
 * (frontend, history, matching, worker and its SQLite store in one); the cluster of scripts/cluster.sh is four
 * service processes plus its PostgreSQL, whose backends are children of the postmaster. Each process is found by the
 * port it listens on (`ss`), so a service restarted between two readings is noticed (its pid changes) and refused.
 */

const TICKS_PER_SECOND = 100;

type Stat = { pid: number; ppid: number; ownTicks: number; childTicks: number };

function readStat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the ")" that closes the command name: state (field 3), ppid (4) … utime (14), stime (15), cutime (16), cstime (17).
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ').map(Number);
    return { pid, ppid: fields[1] as number, ownTicks: (fields[11] as number) + (fields[12] as number), childTicks: (fields[13] as number) + (fields[14] as number) };
  } catch {
    return null;
  }
}

/**
 * CPU ms of `pid` and every live child of it, plus the children it has reaped (cutime + cstime): a PostgreSQL backend
 * that exits between two readings is counted once (its live time before, its whole time in the parent's after).
 */
function treeCpuMs(pid: number): number {
  const root = readStat(pid);
  if (!root) throw new Error(`process ${pid} is gone (/proc/${pid}/stat)`);
  let ticks = root.ownTicks + root.childTicks;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = readStat(Number(entry));
    if (child?.ppid === pid) ticks += child.ownTicks + child.childTicks;
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** A server's processes by name, each by the port it listens on. */
export type ServerProcesses = { label: string; ports: Record<string, number> };

export type CpuReading = { pids: Record<string, number>; ms: Record<string, number> };

/** Reads every process of the server now (pid and CPU ms, by name). */
export function readServerCpu(server: ServerProcesses): CpuReading {
  const pids: Record<string, number> = {};
  const ms: Record<string, number> = {};
  for (const [name, port] of Object.entries(server.ports)) {
    const pid = listeningPid(`127.0.0.1:${port}`);
    if (pid === null) throw new Error(`${server.label}: nothing listens on 127.0.0.1:${port} (${name}), or ss cannot tell its pid`);
    pids[name] = pid;
    ms[name] = treeCpuMs(pid);
  }
  return { pids, ms };
}

/** CPU ms spent between two readings, by process and in total; throws when a process was replaced in between. */
export function cpuSpent(server: ServerProcesses, before: CpuReading, after: CpuReading): { total: number; byProcess: Record<string, number> } {
  const byProcess: Record<string, number> = {};
  for (const name of Object.keys(server.ports)) {
    if (before.pids[name] !== after.pids[name]) throw new Error(`${server.label}: ${name} restarted during the measurement (pid ${before.pids[name]} → ${after.pids[name]})`);
    byProcess[name] = (after.ms[name] as number) - (before.ms[name] as number);
  }
  return { total: Object.values(byProcess).reduce((sum, value) => sum + value, 0), byProcess };
}
