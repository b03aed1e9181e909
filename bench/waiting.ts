// Waiting at scale: N Kueue-mode Starts all at step 9 at once, on the real Kueue. Their namespace
// has no LocalQueue yet, so the real Kueue makes each Workload at once but without dispatch's
// admission check (no ClusterQueue to take it from), and step 9 keeps waiting for the check. The
// worker's Kubernetes calls (the Starts' and its admission check controller's) go through the
// fault proxy (no faults), which counts them; once every Start is waiting (or no more start
// waiting), the worker's RSS and the API request rate are watched for a window. Then the
// LocalQueue is made (deploy/samples/kueue/local-queue.yaml), Kueue lists the check on every
// Workload, and the Starts drain.
import type { WorkflowHandle } from '@temporalio/client';
import { FaultProxy, type ProxiedRequest } from '../dev/harness/fault-proxy.js';
import { applyKueueSamples } from '../dev/harness/samples.js';
import { Labels } from '../src/model/constants.js';
import { startRequest } from '../test/support/requests.js';
import type { BenchEnv } from './env.js';
import { KUEUE } from './history.js';
import { countByKind, countRunning, untilChecking, untilTrue, watchWindow } from './observe.js';
import { SearchAttributes } from '../src/contract/names.js';
import { stepLabel } from '../src/core/start/steps.js';
import { describeShare } from './proc.js';
import type { BenchSettings } from './settings.js';
import { fixed, mib, type Row } from './stats.js';
import { cpuSeconds } from './worker-handle.js';

/** Submissions in flight at once while ramping up. */
const SUBMIT_CONCURRENCY = 32;

export interface WaitingResult {
  submitted: number;
  /** Distinct Starts polling for their Workload during the window. */
  waiting: number;
  /** Starts already failed when the window began. */
  failedBeforeWindow: number;
  rampSeconds: number;
  windowSeconds: number;
  requests: number;
  /** The Starts' Workload lists (by job UID), and the other requests by kind (the admission check controller's passes among them). */
  workloadLists: number;
  otherRequests: Record<string, number>;
  requestsPerSecond: number;
  requestsPerWaitPerSecond: number;
  /** The worker's RSS before its first Start, and while the Starts wait. */
  workerIdleRss: number;
  workerRss: number;
  workerPeakRss: number;
  workerHeapUsed: number;
  workerCores: number;
  cpu: string;
  drain: { seconds: number; completed: number; failed: number };
}

/** A Start's Workload check: a list by job UID; the admission check controller's passes list by the label's presence alone. */
const isWorkloadList = (r: ProxiedRequest) =>
  r.method === 'GET' &&
  r.path.endsWith('/workloads') &&
  !r.watch &&
  new URLSearchParams(r.query).get('labelSelector') !== Labels.kueueJobUid;


const describeCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ') || 'none';

const count = async (env: BenchEnv, taskQueue: string, status: string) =>
  (await env.temporal.workflow.count(`TaskQueue = '${taskQueue}' AND ExecutionStatus = '${status}'`)).count;

export async function measureWaiting(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: WaitingResult }> {
  const n = settings.waits;
  const namespace = await env.namespace('waiting');
  // Long enough that no wait ends by itself during the ramp and the window.
  const config = env.config(namespace, { ...KUEUE, timeouts: { workload: '1800s', call: '30s' } });
  const proxy = await FaultProxy.start({ ...env.admin, namespace });
  const worker = await env.worker('waiting', config, {
    kubeconfigPath: env.kubeconfigFile('waiting-proxy', proxy.accessFor()),
  });
  const idle = await worker.usage();
  const client = env.client(config);
  const taskQueue = config.temporal.taskQueue;
  try {
    // Ramp: submit every Start, and watch the Workload lists until every Start polls.
    const t0 = performance.now();
    const handles: WorkflowHandle[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: SUBMIT_CONCURRENCY }, async () => {
        while (next < n) {
          next++;
          handles.push(await client.submit(startRequest()));
        }
      }),
    );
    // At step 9 by the DispatchStep search attribute: their checks read the worker's watch, which
    // no request per check shows (before the watch, each check was a list the proxy saw).
    const atStep9 = () => countRunning(env, taskQueue, 'StartTrainJob', SearchAttributes.step, stepLabel(9));
    await untilChecking('Starts waiting at step 9 for their Workload', n, atStep9, 2000);
    const rampSeconds = (performance.now() - t0) / 1000;
    const failedBeforeWindow = await count(env, taskQueue, 'Failed');

    // Window: every request the worker makes, the worker's RSS and CPU.
    const {
      seconds: windowSeconds,
      requests: inWindow,
      from: u0,
      to: u1,
      share,
    } = await watchWindow(env, worker, proxy, settings.waitWindowSeconds);
    const lists = inWindow.filter(isWorkloadList);
    const waiting = await atStep9();

    // Drain: with the LocalQueue, Kueue lists the check on every Workload; every Start should now finish.
    const d0 = performance.now();
    await applyKueueSamples(env.admin, [namespace]);
    await untilTrue(600_000, async () => (await count(env, taskQueue, 'Running')) === 0);
    const drain = {
      seconds: (performance.now() - d0) / 1000,
      completed: await count(env, taskQueue, 'Completed'),
      failed: await count(env, taskQueue, 'Failed'),
    };

    const result: WaitingResult = {
      submitted: handles.length,
      waiting,
      failedBeforeWindow,
      rampSeconds,
      windowSeconds,
      requests: inWindow.length,
      workloadLists: lists.length,
      otherRequests: countByKind(inWindow.filter((r) => !isWorkloadList(r))),
      requestsPerSecond: inWindow.length / windowSeconds,
      requestsPerWaitPerSecond: inWindow.length / windowSeconds / Math.max(1, waiting),
      workerIdleRss: idle.rss,
      workerRss: u1.rss,
      workerPeakRss: u1.peakRss,
      workerHeapUsed: u1.heapUsed,
      workerCores: cpuSeconds(u0, u1) / windowSeconds,
      cpu: describeShare(share),
      drain,
    };
    const rows: Row[] = [
      {
        section: 'waiting',
        metric: `${n} Kueue Starts submitted`,
        value:
          `${waiting} waiting at once after ${fixed(rampSeconds)} s` +
          `${failedBeforeWindow ? `; ${failedBeforeWindow} had already FAILED` : ''}`,
      },
      {
        section: 'waiting',
        metric: 'worker RSS while they wait',
        value:
          `${mib(result.workerRss)} (peak ${mib(result.workerPeakRss)}; idle before the first Start ${mib(result.workerIdleRss)}; ` +
          `main-thread heap ${mib(result.workerHeapUsed)}); worker ${fixed(result.workerCores, 2)} cores`,
        ...(n >= 10_000
          ? { target: '<= 600 MB with 10,000 waits', met: result.workerPeakRss <= 600e6 }
          : { target: '<= 400 MB with 1,000 waits', met: result.workerPeakRss <= 400e6 }),
      },
      {
        section: 'waiting',
        metric: 'API requests while they wait',
        value:
          `${fixed(result.requestsPerSecond)}/s over ${fixed(windowSeconds)} s = ${fixed(result.requestsPerWaitPerSecond, 2)}/s per waiting Start ` +
          `(${lists.length} of ${inWindow.length} are Workload lists by job-uid; the others: ${describeCounts(result.otherRequests)})`,
        target: 'about 1/s per waiting Start, no more',
        met: result.requestsPerWaitPerSecond <= 1.1,
      },
      { section: 'waiting', metric: '  CPU while they wait (cores)', value: result.cpu },
      {
        section: 'waiting',
        metric: 'drain once the LocalQueue is made (Kueue lists the check)',
        value: `${fixed(drain.seconds)} s; ${drain.completed} completed, ${drain.failed} failed`,
      },
    ];
    return { rows, result };
  } finally {
    await worker.stop();
    await proxy.close();
  }
}
