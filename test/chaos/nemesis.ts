// The nemesis: applies a chaos run's fault schedule (schedule.ts) to its live stack at the planned
// moments. Each fault takes one part down (a worker killed, Temporal, the API server, Kueue or
// Trainer stopped; with --multikueue the worker cluster's API server or Kueue too) and brings it
// back after its down time, or arms a fault proxy (the manager's, or the worker cluster's) for the
// next few matching requests. Faults of different parts overlap; a fault planned while its part is still
// down, or back for less than UP_BETWEEN_MS, is skipped (and counted), so no part's faults queue up.
import type { FaultRule } from '../../dev/harness/fault-proxy.js';
import { Kueue, Trainer } from '../../src/model/constants.js';
import { sleepUnlessAborted } from '../../src/worker/preflight.js';
import type { FaultProxy } from '../../dev/harness/fault-proxy.js';
import type { ChaosStack } from './stack.js';
import { describeFault, isProxyKind, type FaultKind, type FaultPlan, type ProxyTarget } from './schedule.js';

export interface AppliedFault {
  fault: FaultPlan;
  /** Milliseconds from the run's start when it was applied, and when its part was back. */
  appliedAtMs: number;
  recoveredAtMs: number;
  /** Proxy faults: the requests it took. */
  hits?: number;
  /**
   * Proxy faults that took a request: milliseconds from the run's start of the first, and of the
   * last request's end (a held, hung or dropped answer lasts until the worker gives the request up,
   * REQUEST_BOUND_MS; a delay its delay; a reset or a status at once). A call answered before the
   * first, or sent well after the last, was not touched by it.
   */
  hitFromMs?: number;
  hitToMs?: number;
  /** Why bringing the part back failed, if it did (the run then stops: its stack is broken). */
  error?: string;
}

/** How long a part may take to come back once its down time is over (other faults may hold it up). */
const UP_WITHIN_MS = 120_000;

/**
 * How long a part stays up between two of its faults. Without it, faults planned while the API
 * server was restarting ran back to back: on 2 cores, four restarts made one outage of 64 s, longer
 * than CallBound (30 s), so Starts at steps 7-9 were refused as the contract says, and the run
 * measured the schedule rather than the product. With it, a call retried through one outage (its
 * retries at most 5 s apart, each request bounded at 5 s) is answered before the next one begins.
 * A fault that comes sooner is skipped rather than delayed: delayed, they queued up behind the API
 * server (a restart plus its up time outlasts the schedule's mean gap per part), which then
 * restarted back to back for the rest of a 1,000-lifecycle run (2026-12-02).
 */
export const UP_BETWEEN_MS = 15_000;

/** How long an armed proxy fault waits for a matching request before it is disarmed. */
const PROXY_ARMED_MS = 15_000;
/**
 * The worker cluster's proxy's: dispatch's requests there are sparse (step 5 at each Start, each
 * worker's collector listing once a minute, a failed job's pod list), and armed for 15 s its faults
 * took 1 of 11 (seed 20261201, 6 lifecycles at 3), so it waits long enough to meet a collector's pass.
 */
const WORKER_CLUSTER_ARMED_MS = 45_000;

/** The workers' bound on one HTTP request (stack.ts REQUEST_TIMEOUT_MS): how long a request a proxy fault held, hung or dropped stays unanswered. */
const REQUEST_BOUND_MS = 5_000;

/** Sleeps `ms`, however the run goes: a part taken down must come back. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function proxyRule(stack: ChaosStack, target: ProxyTarget): Omit<FaultRule, 'action'> {
  const base = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${stack.namespace}`;
  const trainJob = new RegExp(`^${base}/${Trainer.trainJobPlural}/[^/]+$`);
  const runtime = new RegExp(`^${base}/${Trainer.trainingRuntimePlural}/[^/]+$`);
  const rules: Record<ProxyTarget, Omit<FaultRule, 'action'>> = {
    'create-trainjob': { method: 'POST', path: `${base}/${Trainer.trainJobPlural}` },
    'create-runtime': { method: 'POST', path: `${base}/${Trainer.trainingRuntimePlural}` },
    'patch-trainjob': { method: 'PATCH', path: trainJob },
    'patch-runtime': { method: 'PATCH', path: runtime },
    'delete-trainjob': { method: 'DELETE', path: trainJob },
    'patch-workload': { method: 'PATCH', path: new RegExp(`^/apis/${Kueue.group}/[^/]+/namespaces/${stack.namespace}/${Kueue.workloadPlural}/`) },
    'read-trainjob': { method: 'GET', path: trainJob },
    list: { method: 'GET', path: /\/[a-z]+s$/, watch: false },
    any: { path: /.*/, watch: false },
    // The worker cluster's (WORKER_CLUSTER_TARGETS).
    'read-runtime': { method: 'GET', path: runtime },
    'delete-runtime': { method: 'DELETE', path: runtime },
    'list-runtimes': { method: 'GET', path: `${base}/${Trainer.trainingRuntimePlural}`, watch: false },
    'list-pods': { method: 'GET', path: `/api/v1/namespaces/${stack.namespace}/pods`, watch: false },
  };
  return rules[target];
}

/** The proxy a fault arms: the worker cluster's for worker-cluster-proxy. */
function proxyOf(stack: ChaosStack, fault: FaultPlan): FaultProxy {
  if (fault.kind !== 'worker-cluster-proxy') return stack.proxy;
  if (!stack.workerCluster) throw new Error(`fault ${fault.index}: a worker-cluster fault on a stack without a worker cluster (--multikueue)`);
  return stack.workerCluster.proxy;
}

/** The worker cluster, for its faults. */
function workerCluster(stack: ChaosStack, fault: FaultPlan) {
  if (!stack.workerCluster) throw new Error(`fault ${fault.index}: a worker-cluster fault on a stack without a worker cluster (--multikueue)`);
  return stack.workerCluster.cluster;
}

/** Takes a part down and brings it back; resolves once it is back. */
async function downAndUp(stack: ChaosStack, fault: FaultPlan): Promise<void> {
  const parts: Record<Exclude<FaultKind, 'proxy' | 'worker-cluster-proxy'>, { down: () => Promise<void>; up: () => Promise<void> }> = {
    'worker-kill': {
      down: () => stack.killWorker(stack.workers[fault.worker ?? 0]!),
      up: () => stack.startWorker(stack.workers[fault.worker ?? 0]!),
    },
    'temporal-restart': { down: () => stack.stopTemporal(fault.signal ?? 'SIGTERM'), up: () => stack.startTemporal() },
    // SIGTERM, SIGKILL after a second: its graceful shutdown would outlast a short outage.
    'apiserver-restart': { down: () => stack.cluster.apiServer.stop(1_000), up: () => stack.cluster.apiServer.start() },
    'kueue-restart': { down: () => stack.cluster.controllers.kueue!.kill(), up: () => stack.cluster.controllers.kueue!.start() },
    'trainer-restart': { down: () => stack.cluster.controllers.trainer!.kill(), up: () => stack.cluster.controllers.trainer!.start() },
    // The worker cluster's: its etcd, controllers and KWOK go on, as on the manager.
    'worker-cluster-apiserver-restart': { down: () => workerCluster(stack, fault).apiServer.stop(1_000), up: () => workerCluster(stack, fault).apiServer.start() },
    'worker-cluster-kueue-restart': { down: () => workerCluster(stack, fault).controllers.kueue!.kill(), up: () => workerCluster(stack, fault).controllers.kueue!.start() },
  };
  const part = parts[fault.kind as Exclude<FaultKind, 'proxy' | 'worker-cluster-proxy'>];
  await part.down();
  // Down for its time even when the run ends meanwhile: the part must come back either way.
  await sleep(fault.downMs);
  // A start can fail while another part is down (a worker cannot connect while Temporal is away)
  // or on a port still held a moment after the kill: tried again until UP_WITHIN_MS.
  const deadline = Date.now() + UP_WITHIN_MS;
  for (;;) {
    try {
      return await part.up();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(2_000);
    }
  }
}

export class Nemesis {
  readonly applied: AppliedFault[] = [];
  /** Faults planned while their part was down or not yet up for UP_BETWEEN_MS. */
  readonly skipped: FaultPlan[] = [];
  private readonly busy = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private broken: Error | undefined;

  constructor(
    private readonly stack: ChaosStack,
    private readonly log: (line: string) => void,
  ) {}

  /** The error that left the stack broken (a part that would not come back), if any. */
  get failure(): Error | undefined {
    return this.broken;
  }

  /** Applies `faults` at their moments from `t0` until `signal` aborts; then waits for every part to be back. */
  async run(faults: readonly FaultPlan[], t0: number, signal: AbortSignal): Promise<void> {
    for (const fault of faults) {
      await sleepUnlessAborted(Math.max(0, t0 + fault.atMs - Date.now()), signal);
      if (signal.aborted || this.broken) break;
      const part = fault.kind === 'worker-kill' ? `worker-${fault.worker}` : fault.kind;
      if (this.busy.has(part)) {
        this.skipped.push(fault);
        continue;
      }
      this.busy.add(part);
      const task = (async () => {
        await this.apply(fault, t0, signal);
        if (!isProxyKind(fault.kind)) await sleepUnlessAborted(UP_BETWEEN_MS, signal);
      })();
      const tracked = task.finally(() => {
        this.inFlight.delete(tracked);
        this.busy.delete(part);
      });
      this.inFlight.add(tracked);
    }
    await Promise.all([...this.inFlight]);
    this.stack.proxy.clear();
    this.stack.workerCluster?.proxy.clear();
  }

  private async apply(fault: FaultPlan, t0: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const appliedAtMs = Date.now() - t0;
    this.log(`fault ${fault.index} at ${(appliedAtMs / 1000).toFixed(1)} s: ${describeFault(fault)}`);
    const applied: AppliedFault = { fault, appliedAtMs, recoveredAtMs: appliedAtMs };
    try {
      if (fault.proxy) {
        const { action, target, times, delayMs } = fault.proxy;
        const proxy = proxyOf(this.stack, fault);
        const requests = proxy.requests;
        const seenBefore = requests.length;
        const armed = proxy.inject({ ...proxyRule(this.stack, target), action, times, ...(delayMs ? { delayMs } : {}) });
        await sleepUnlessAborted(fault.kind === 'worker-cluster-proxy' ? WORKER_CLUSTER_ARMED_MS : PROXY_ARMED_MS, signal);
        proxy.remove(armed);
        applied.hits = armed.hits;
        // One fault at a time per proxy (its part is the proxy): the requests that got this action since it was armed are its.
        const took = requests.slice(seenBefore).filter((r) => r.fault === action);
        if (took.length > 0) {
          const lasts = action === 'delay' ? (delayMs ?? 0) : action === 'reset' || action.startsWith('status-') ? 0 : REQUEST_BOUND_MS;
          applied.hitFromMs = took[0]!.at - t0;
          applied.hitToMs = took[took.length - 1]!.at + lasts - t0;
        }
      } else {
        await downAndUp(this.stack, fault);
      }
    } catch (error) {
      applied.error = error instanceof Error ? error.message : String(error);
      this.broken ??= new Error(`fault ${fault.index} (${describeFault(fault)}): its part did not come back: ${applied.error}`);
      this.log(`fault ${fault.index}: ${applied.error}`);
    }
    applied.recoveredAtMs = Date.now() - t0;
    this.applied.push(applied);
  }
}
