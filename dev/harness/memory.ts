// Resident memory of a cluster's processes, read from /proc (Linux): what the local stack costs
// this machine (docs/multikueue.md keeps the figures of the two-cluster stack).
import { readFileSync } from 'node:fs';
import type { ClusterPids } from './cluster.js';

/** VmRSS of one process in bytes; 0 when it is gone or /proc is not there. */
export function residentBytes(pid: number): number {
  if (pid <= 0) return 0;
  try {
    const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Number(kib) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface ClusterMemory {
  /** Sum of the processes' resident memory, bytes. */
  total: number;
  /** Per process, bytes. */
  byProcess: Record<keyof ClusterPids, number>;
}

/** The resident memory of a cluster's processes now. */
export function clusterMemory(pids: ClusterPids): ClusterMemory {
  const byProcess = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, residentBytes(pid)])) as Record<keyof ClusterPids, number>;
  return { total: Object.values(byProcess).reduce((a, b) => a + b, 0), byProcess };
}

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/** "total 1234 MiB (etcd 50 MiB, kubeApiserver 400 MiB, ...)". */
export function describeMemory(memory: ClusterMemory): string {
  const parts = Object.entries(memory.byProcess).map(([name, bytes]) => `${name} ${mib(bytes)}`);
  return `total ${mib(memory.total)} (${parts.join(', ')})`;
}
