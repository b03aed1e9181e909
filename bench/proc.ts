// Where the machine's CPU goes during a measurement, from /proc: each process of the bench's own
// tree (the bench, its workers, the servers of the stack), and everything else on the machine,
// which on a shared machine is other people's work and has to be stated beside the figures.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICK = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime, in seconds. */
  cpu: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    return { pid, ppid: Number(fields[1]), comm, cpu: (Number(fields[11]) + Number(fields[12])) / TICK };
  } catch {
    return undefined;
  }
}

/** Busy and total CPU seconds of one /proc/stat line (`cpu` for the machine, `cpuN` for a core). */
function cpuOfLine(line: string): { busy: number; total: number } {
  const cpu = line.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return { busy: (total - idle) / TICK, total: total / TICK };
}

/** Busy and total CPU seconds of the whole machine, all cores together. */
const machineCpu = () => cpuOfLine(readFileSync('/proc/stat', 'utf8').split('\n')[0]!);

export interface CpuSnapshot {
  at: number;
  machine: { busy: number; total: number };
  /** CPU seconds by process label, for the bench's own process tree. */
  ours: Map<string, number>;
}

function processTree(root: number): { self?: ProcStat; children: Map<number, ProcStat[]> } {
  const all: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (Number.isInteger(pid)) {
      const stat = readStat(pid);
      if (stat) all.push(stat);
    }
  }
  const children = new Map<number, ProcStat[]>();
  for (const stat of all) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  return { self: all.find((s) => s.pid === root), children };
}

/** The pids of `root` and every process below it (the bench, its workers, the stack's servers). */
export function treePids(root = process.pid): number[] {
  const { self, children } = processTree(root);
  const pids: number[] = [];
  const visit = (stat: ProcStat) => {
    pids.push(stat.pid);
    for (const child of children.get(stat.pid) ?? []) visit(child);
  };
  if (self) visit(self);
  return pids;
}

/** Busy and total CPU seconds of each core (`cpu0`, `cpu1`, ... of /proc/stat). */
export function coreCpu(): { busy: number; total: number }[] {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line))
    .map(cpuOfLine);
}

/**
 * The bench's process tree, labelled: `labels` names known pids (the bench, each worker); any
 * other descendant goes by its command name (temporal, etcd, kube-apiserver, ...).
 */
export function cpuSnapshot(labels: Map<number, string>, root = process.pid): CpuSnapshot {
  const { self, children } = processTree(root);
  const ours = new Map<string, number>();
  const visit = (stat: ProcStat) => {
    const label = labels.get(stat.pid) ?? stat.comm;
    ours.set(label, (ours.get(label) ?? 0) + stat.cpu);
    for (const child of children.get(stat.pid) ?? []) visit(child);
  };
  if (self) visit(self);
  return { at: performance.now(), machine: machineCpu(), ours };
}

export interface CpuShare {
  seconds: number;
  /** Cores each of our processes kept busy on average over the interval. */
  ours: Record<string, number>;
  /** Cores busy on the whole machine, and the part that was not ours. */
  machineBusy: number;
  others: number;
}

export function cpuBetween(from: CpuSnapshot, to: CpuSnapshot): CpuShare {
  const seconds = (to.at - from.at) / 1000;
  const ours: Record<string, number> = {};
  let oursTotal = 0;
  for (const [label, cpu] of to.ours) {
    const used = cpu - (from.ours.get(label) ?? 0);
    if (used <= 0) continue;
    ours[label] = used / seconds;
    oursTotal += used;
  }
  const machineBusy = (to.machine.busy - from.machine.busy) / seconds;
  return { seconds, ours, machineBusy, others: Math.max(0, machineBusy - oursTotal / seconds) };
}

/** CPU milliseconds per unit of work (a Start) by process, the bench's own client excluded, and their sum. */
export function cpuPerUnit(
  share: CpuShare,
  units: number,
): { byProcess: Record<string, number>; total: number } {
  const byProcess: Record<string, number> = {};
  let total = 0;
  for (const [label, cores] of Object.entries(share.ours)) {
    if (label === 'bench') continue;
    const msPer = (cores * share.seconds * 1000) / Math.max(1, units);
    if (msPer < 0.5) continue;
    byProcess[label] = msPer;
    total += msPer;
  }
  return { byProcess, total };
}

/** "worker 31.0 + temporal 25.2 + kube-apiserver 10.1 = 66.3 ms" */
export function describePerUnit(per: ReturnType<typeof cpuPerUnit>): string {
  const parts = Object.entries(per.byProcess)
    .sort((a, b) => b[1] - a[1])
    .map(([label, msPer]) => `${label} ${msPer.toFixed(1)}`);
  return `${parts.join(' + ')} = ${per.total.toFixed(1)} ms`;
}

/** "worker 0.62, temporal 0.41, kube-apiserver 0.30; others 0.50 cores" */
export function describeShare(share: CpuShare): string {
  const parts = Object.entries(share.ours)
    .filter(([, cores]) => cores >= 0.01)
    .sort((a, b) => b[1] - a[1])
    .map(([label, cores]) => `${label} ${cores.toFixed(2)}`);
  return `${parts.join(', ')}; not ours ${share.others.toFixed(2)} (machine ${share.machineBusy.toFixed(2)} of ${cpus().length}) cores`;
}
