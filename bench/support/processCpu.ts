// The CPU time of a benchmark's processes, and pinning them to a CPU, from
// /proc (Linux): what each proxy costs, apart from what else runs.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** /proc/<pid>/stat counts CPU time in these (sysconf(_SC_CLK_TCK), 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100;

export async function readPidFile(path: string): Promise<number> {
  const pid = Number((await readFile(path, 'utf8')).trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${path} holds no pid`);
  return pid;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
async function statFields(pid: number): Promise<string[] | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // exited meanwhile
  }
}

/** An nginx master and its workers (read again each round: a reload replaces the workers). */
export async function processTree(masterPid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = (await statFields(Number(entry)))?.[1]; // field 4, ppid
    if (parent === String(masterPid)) children.push(Number(entry));
  }
  return [masterPid, ...children];
}

export async function pin(pids: readonly number[], cpu: number): Promise<void> {
  for (const pid of pids) await run('taskset', ['--all-tasks', '--pid', '--cpu-list', String(cpu), String(pid)], { timeout: 10_000 });
}

/** Busy and total clock ticks of one CPU since boot, from /proc/stat. */
export async function cpuCounters(cpu: number): Promise<{ busy: number; total: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n').find((entry) => entry.startsWith(`cpu${cpu} `));
  if (line === undefined) throw new Error(`/proc/stat has no line for CPU ${cpu}`);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/** CPU time of processes, in clock ticks: in user space (the program itself), and in the kernel for it. */
export interface CpuTicks {
  readonly user: number;
  readonly system: number;
}

export async function cpuTicks(pids: readonly number[]): Promise<CpuTicks> {
  let user = 0;
  let system = 0;
  for (const pid of pids) {
    const fields = await statFields(pid);
    // Fields 14 and 15 (utime, stime), counted from 3 here.
    if (fields) {
      user += Number(fields[11]);
      system += Number(fields[12]);
    }
  }
  return { user, system };
}

/** Seconds of CPU time between two readings: { user, system, total }. */
export function cpuSecondsBetween(before: CpuTicks, after: CpuTicks): { user: number; system: number; total: number } {
  const user = (after.user - before.user) / CLOCK_TICKS_PER_SECOND;
  const system = (after.system - before.system) / CLOCK_TICKS_PER_SECOND;
  return { user, system, total: user + system };
}
