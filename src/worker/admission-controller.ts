// dispatch's admission check controller (Kueue mode, docs/contract.md §9; docs/operations.md): the
// imperative shell around src/core/admission/. As Kueue's own admission check controllers, it is two
// reconcilers: one keeps dispatch's AdmissionCheck Active (admission/check-reconciler.ts), one sets
// dispatch's check Ready on the Workloads whose TrainJob may run (admission/workload-reconciler.ts),
// each writing with the core's JSON-patch tests (UID, resourceVersion, the entry it changes). A pass
// runs both, the AdmissionCheck first: the Workloads are marked only for dispatch's check, as read
// in the same pass. It keeps no memory between passes beyond counters and which problem it last
// logged, so two workers running it at once, or one restarted, change nothing.
import type { KubeClients } from '../kube/clients.js';
import { ObjectCalls, workloads } from '../kube/objects.js';
import type { WatchedLists } from '../kube/watched-lists.js';
import type { AdmissionControllerCounters } from '../core/admission/counters.js';
import type { OperationConfig } from '../core/operations/observed.js';
import { Labels } from '../model/constants.js';
import { reconcileAdmissionCheck } from './admission/check-reconciler.js';
import { KubeUnanswered } from '../kube/call.js';
import { AdmissionPass } from './admission/pass.js';
import type { Log } from '../observability/log.js';
import { reconcileWorkloads } from './admission/workload-reconciler.js';
import { sleepUnlessAborted } from './preflight.js';

export const DEFAULT_ADMISSION_INTERVAL_MS = 1000;
/** The least time between two passes, however often the Workloads change. */
export const MIN_GAP_MS = 100;

export interface AdmissionControllerOptions {
  kube: KubeClients;
  config: OperationConfig;
  /** How long one HTTP request may stay unanswered. */
  requestTimeoutMs: number;
  /**
   * The worker's watch-fed lists: while their feeds are in step a pass reads the Workloads and
   * TrainJobs there, and lists them only while they are not (a list of every Workload in the
   * namespace, every second, was most of the API server's work with 1,000 Starts waiting).
   */
  lists?: Pick<WatchedLists, 'snapshot' | 'changed'>;
  /** Time between the start of one pass and the next (default 1 s). */
  intervalMs?: number;
  log: Log;
  /** The clock conditions are stamped with (tests fix it). */
  now?: () => Date;
}

/** What one pass did. */
export interface PassResult {
  /** Whether every call was answered and every refusal was a stale write. */
  clean: boolean;
  /** Writes that applied, by summary. */
  applied: string[];
}

export interface AdmissionController {
  readonly counters: Readonly<AdmissionControllerCounters>;
  /** One pass: read, decide, write; an abort of the signal cuts its calls short. Never throws. */
  pass(signal?: AbortSignal): Promise<PassResult>;
  /** Passes every interval until the signal aborts; resolves once the pass in flight has ended. */
  run(signal: AbortSignal): Promise<void>;
}

/** RFC 3339 to the second, as Kubernetes writes metav1.Time. */
const rfc3339 = (date: Date) => date.toISOString().replace(/\.\d+Z$/, 'Z');

export function createAdmissionController(options: AdmissionControllerOptions): AdmissionController {
  const { config, log } = options;
  const version = config.kueue.workloadVersion;
  const workloadKind = workloads(version);
  const intervalMs = options.intervalMs ?? DEFAULT_ADMISSION_INTERVAL_MS;
  const now = options.now ?? (() => new Date());
  const counters: AdmissionControllerCounters = { passes: 0, activeWrites: 0, readyWrites: 0, undoWrites: 0, nudgeWrites: 0, stale: 0, unanswered: 0, refused: 0, complete: 0, incomplete: 0 };
  // A problem that lasts (no AdmissionCheck, a 403) is logged when it starts and when it changes,
  // not every second.
  let lastProblems = '';

  async function pass(signal?: AbortSignal): Promise<PassResult> {
    // The calls hang on the shutdown signal directly: each call's listener on it is removed when
    // the call ends (requestBound in src/kube/call.ts), so a long-lived signal gathers none.
    return reconcile(new ObjectCalls(options.kube, { requestTimeoutMs: options.requestTimeoutMs, signal }), signal);
  }

  /** The two reconcilers, the AdmissionCheck's first; then the pass's problems are logged if they changed. */
  async function reconcile(calls: ObjectCalls, signal: AbortSignal | undefined): Promise<PassResult> {
    counters.passes++;
    const current = new AdmissionPass(calls, rfc3339(now()), version, counters, log);
    try {
      const check = await reconcileAdmissionCheck(current, config);
      if (check !== undefined) await reconcileWorkloads(current, check, { config, ...(options.lists ? { lists: options.lists } : {}) });
    } catch (error) {
      current.problems.push(error instanceof KubeUnanswered ? `${error.message}; retried next pass` : `unexpected: ${(error as Error).message}`);
    }
    const { problems, applied } = current;
    if (problems.length === 0) counters.complete++;
    else counters.incomplete++;
    const summary = problems.join('; ');
    // A pass cut short by shutdown has nothing to report.
    if (summary !== lastProblems && !signal?.aborted) {
      if (summary) log('admission check controller: pass incomplete', { problems }, 'warn');
      else if (lastProblems) log('admission check controller: pass complete again');
      lastProblems = summary;
    }
    return { clean: problems.length === 0, applied };
  }

  return {
    counters,
    pass,
    async run(signal: AbortSignal): Promise<void> {
      log('admission check controller started', {
        admissionCheck: config.kueue.admissionCheck,
        namespace: config.namespace,
        intervalMs,
      });
      while (!signal.aborted) {
        const started = Date.now();
        // The next pass comes after the interval or, once the watch is in step, as soon as a
        // Workload changes (Kueue reserving quota is what the controller answers), at most every
        // MIN_GAP_MS. The wait for a change begins before the pass: a change during the pass, or
        // in the gap after it, must bring the next one forward too.
        const changed = options.lists?.changed(workloadKind, config.namespace, Labels.kueueJobUid, undefined, intervalMs);
        // pass() catches what it knows; this keeps anything else from ending the loop, or the worker.
        await pass(signal).catch((error: unknown) => log('admission check controller: pass failed', { error: String(error) }, 'error'));
        await sleepUnlessAborted(MIN_GAP_MS, signal);
        const left = Math.max(0, intervalMs - (Date.now() - started));
        await Promise.race([sleepUnlessAborted(left, signal), ...(changed ? [changed] : [])]);
      }
      log('admission check controller stopped', { ...counters });
    },
  };
}
