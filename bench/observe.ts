// What the sections that load one worker with many waiting workflows share (waiting.ts,
// watching.ts): reading the label selectors of the lists the fault proxy saw, waiting until every
// workflow checks, and a window over which the worker's requests, RSS and CPU are taken.
import type { FaultProxy, ProxiedRequest } from '../dev/harness/fault-proxy.js';
import type { BenchEnv } from './env.js';
import { cpuBetween, cpuSnapshot, type CpuShare } from './proc.js';
import type { BenchWorker, WorkerUsage } from './worker-handle.js';

/** Calls in flight at once when a section starts, opens, watches or stops many. */
export const CONCURRENCY = 32;

/**
 * Runs `work` for each item, CONCURRENCY at a time; answers in the items' order. With `progress`,
 * logs how many are done every `every` items (default 1,000) and at the end.
 */
export async function eachOf<T, U>(
  items: readonly T[],
  work: (item: T, i: number) => Promise<U>,
  progress?: { what: string; every?: number },
): Promise<U[]> {
  const out = new Array<U>(items.length);
  let next = 0;
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!, i);
        done += 1;
        if (progress && (done % (progress.every ?? 1000) === 0 || done === items.length))
          console.error(`[bench] ${progress.what} ${done}/${items.length} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      }
    }),
  );
  return out;
}

/** No new workflow checking for this long means the rest will not check (or have failed). */
const STALL_MS = 45_000;

/** The value and how long `work` took, in ms. */
export async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await work();
  return [value, performance.now() - t0];
}

export async function untilTrue(
  timeoutMs: number,
  probe: () => Promise<boolean> | boolean,
  intervalMs = 1000,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return false;
}

/** The values a batched list asks about: `<key> in (<value>,...)`, or `<key>=<value>`. */
export function valuesAskedBy(r: ProxiedRequest): string[] {
  const selector = new URLSearchParams(r.query).get('labelSelector') ?? '';
  const set = /\bin \(([^)]*)\)/.exec(selector);
  return set ? set[1]!.split(',') : [selector.slice(selector.indexOf('=') + 1)];
}

/** How many of the task queue's running workflows of `type` have the search attribute `key` at `value`. */
export async function countRunning(env: BenchEnv, taskQueue: string, type: string, key: string, value: string): Promise<number> {
  const query = `TaskQueue = '${taskQueue}' AND WorkflowType = '${type}' AND ExecutionStatus = 'Running' AND ${key} = '${value}'`;
  return (await env.temporal.workflow.count(query)).count;
}

/** `GET trainjobs/<name>`, `PATCH workloads/<name>/status`: a request's method and resource, without namespace and name. */
export function requestKind(r: ProxiedRequest): string {
  const at = /^\/apis?\/(?:[^/]+\/)?v[^/]+\/(?:namespaces\/[^/]+\/)?([^/]+)(\/[^/]+)?(\/[^/]+)?$/.exec(
    r.path,
  );
  return `${r.watch ? 'WATCH' : r.method} ${at ? `${at[1]}${at[2] ? '/<name>' : ''}${at[3] ?? ''}` : r.path}`;
}

/** How many of the requests are of each kind (requestKind). */
export const countByKind = (requests: readonly ProxiedRequest[]): Record<string, number> =>
  requests
    .map(requestKind)
    .reduce<Record<string, number>>((counts, kind) => ({ ...counts, [kind]: (counts[kind] ?? 0) + 1 }), {});

/**
 * Waits until `checking()` (how many workflows checked lately) reaches `total`, or has not grown for
 * STALL_MS; logs the count each second. Answers the seconds it took.
 */
export async function untilChecking(
  what: string,
  total: number,
  checking: () => number | Promise<number>,
  intervalMs = 1000,
): Promise<number> {
  const t0 = performance.now();
  let best = 0;
  let bestAt = performance.now();
  await untilTrue(Number.POSITIVE_INFINITY, async () => {
    const now = await checking();
    if (now > best) [best, bestAt] = [now, performance.now()];
    console.error(`[bench] ${now} of ${total} ${what}`);
    return now >= total || performance.now() - bestAt > STALL_MS;
  }, intervalMs);
  return (performance.now() - t0) / 1000;
}

export interface Window {
  seconds: number;
  /** Every request the worker made through the proxy during the window. */
  requests: ProxiedRequest[];
  /** The worker's usage at its start (with a fresh peak) and at its end. */
  from: WorkerUsage;
  to: WorkerUsage;
  share: CpuShare;
}

/** Watches the worker for `seconds`: its requests through `proxy`, its RSS and CPU, and the machine's CPU. */
export async function watchWindow(
  env: BenchEnv,
  worker: BenchWorker,
  proxy: FaultProxy,
  seconds: number,
): Promise<Window> {
  const first = proxy.requests.length;
  const wallFrom = Date.now();
  const from = await worker.resetPeak();
  const c0 = cpuSnapshot(env.labels);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const share = cpuBetween(c0, cpuSnapshot(env.labels));
  const to = await worker.usage();
  return { seconds: (Date.now() - wallFrom) / 1000, requests: proxy.requests.slice(first), from, to, share };
}
