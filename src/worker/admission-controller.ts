// dispatch's admission check controller (Kueue mode, docs/contract.md §9; docs/lifecycle.md): the
// imperative shell around src/core/admission/admission.ts. Every pass reads dispatch's AdmissionCheck, the
// namespace's Workloads and dispatch's TrainJobs, asks the pure core what to write, and writes it
// with the core's JSON-patch tests (UID, resourceVersion, the entry it changes). It keeps no memory
// between passes beyond counters and which problem it last logged, so two workers running it at
// once, or one restarted, change nothing: the second of two identical writes fails its test, which
// is a stale write, counted and left for the next pass to re-read.
import type { KubeClients } from '../activities/kube-clients.js';
import { describeRefusal, type KubeAnswer } from '../activities/kube-call.js';
import { isStaleWrite, sendPlannedWrite } from '../activities/lifecycle-activities.js';
import { admissionChecks, ObjectCalls, TRAINJOBS, workloads, type NamespacedKind } from '../activities/objects.js';
import type { WatchedLists } from '../activities/watched-lists.js';
import { admissionCheckActivePatch } from '../core/admission/check-active.js';
import { trainJobsByUid, workloadsToMarkReady } from '../core/admission/workload-ready.js';
import type { PlannedWrite } from '../core/objects/planned-write.js';
import type { OperationConfig } from '../core/operations/observed.js';
import { LabelValues, Labels } from '../model/constants.js';
import type { KubeObject, TrainJob, Workload } from '../model/kube.js';
import type { AdmissionCheck } from '../model/lifecycle.js';
import { DispatchAdmissionCheck } from '../model/lifecycle-constants.js';
import { sleepUnlessAborted } from './preflight.js';

export const DEFAULT_ADMISSION_INTERVAL_MS = 1000;
/** The least time between two passes, however often the Workloads change. */
export const MIN_GAP_MS = 100;

/** What the controller has done since it was made; every worker's own. */
export interface AdmissionCounters {
  passes: number;
  /** Status writes that applied: the AdmissionCheck set Active. */
  activeWrites: number;
  /** Status writes that applied: a Workload's check set Ready. */
  readyWrites: number;
  /** Writes whose object had changed or gone since it was read (another writer came first). */
  stale: number;
  /** Calls the API did not answer; the next pass tries again. */
  unanswered: number;
  /** Definite refusals other than a stale write (e.g. 403, a 422 naming a cause). */
  refused: number;
}

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
  log: (message: string, fields?: Record<string, unknown>) => void;
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
  readonly counters: Readonly<AdmissionCounters>;
  /** One pass: read, decide, write; an abort of the signal cuts its calls short. Never throws. */
  pass(signal?: AbortSignal): Promise<PassResult>;
  /** Passes every interval until the signal aborts; resolves once the pass in flight has ended. */
  run(signal: AbortSignal): Promise<void>;
}

/** RFC 3339 to the second, as Kubernetes writes metav1.Time. */
const rfc3339 = (date: Date) => date.toISOString().replace(/\.\d+Z$/, 'Z');

class Unanswered extends Error {}

export function createAdmissionController(options: AdmissionControllerOptions): AdmissionController {
  const { config, log } = options;
  const version = config.kueue.workloadVersion;
  const checkKind = admissionChecks(version);
  const workloadKind = workloads(version);
  const intervalMs = options.intervalMs ?? DEFAULT_ADMISSION_INTERVAL_MS;
  const now = options.now ?? (() => new Date());
  const counters: AdmissionCounters = { passes: 0, activeWrites: 0, readyWrites: 0, stale: 0, unanswered: 0, refused: 0 };
  // A problem that lasts (no AdmissionCheck, a 403) is logged when it starts and when it changes,
  // not every second.
  let lastProblems = '';

  async function ask<T>(call: () => Promise<KubeAnswer<T>>): Promise<KubeAnswer<T>> {
    try {
      return await call();
    } catch (error) {
      counters.unanswered++;
      throw new Unanswered((error as Error).message);
    }
  }

  async function pass(signal?: AbortSignal): Promise<PassResult> {
    // Each pass's calls hang on a signal of the pass's own, not on the long-lived shutdown signal,
    // which would otherwise gather a dependant for every call made (AbortSignal.any in kube-call).
    const cut = new AbortController();
    const onAbort = () => cut.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) cut.abort();
    try {
      return await passWith(new ObjectCalls(options.kube, { requestTimeoutMs: options.requestTimeoutMs, signal: cut.signal }), signal);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** What a list would answer, from the worker's watch-fed copy when it is in step; else undefined, and the pass lists. */
  function fromWatch(kind: NamespacedKind, label: string, keep: (o: KubeObject) => boolean): Promise<KubeAnswer<{ items: KubeObject[] }>> | undefined {
    const items = options.lists?.snapshot(kind, config.namespace, label);
    return items ? Promise.resolve({ answered: 'ok', value: { items: items.filter(keep) } }) : undefined;
  }

  async function passWith(calls: ObjectCalls, signal: AbortSignal | undefined): Promise<PassResult> {
    counters.passes++;
    const problems: string[] = [];
    const applied: string[] = [];
    const at = rfc3339(now());

    const write = async (planned: PlannedWrite): Promise<void> => {
      const answer = await ask(() => sendPlannedWrite(calls, planned, version));
      if (answer.answered === 'ok') {
        if (planned.kind === 'AdmissionCheck') counters.activeWrites++;
        else counters.readyWrites++;
        applied.push(planned.summary);
        log('admission check controller wrote', { write: planned.summary });
      } else if (isStaleWrite(answer)) {
        counters.stale++;
      } else {
        counters.refused++;
        problems.push(`${planned.summary}: ${describeRefusal(answer)}`);
      }
    };

    try {
      const checkAnswer = await ask(() => calls.getClusterScoped(checkKind, config.kueue.admissionCheck));
      if (checkAnswer.answered === 'definite') {
        counters.refused++;
        problems.push(`reading ${DispatchAdmissionCheck.kind} ${config.kueue.admissionCheck}: ${describeRefusal(checkAnswer)}`);
      } else {
        const check = checkAnswer.value as AdmissionCheck;
        const active = admissionCheckActivePatch(check, config, at);
        if (active.action === 'patch') await write(active.write);
        const controller = check.spec?.controllerName;
        if (controller !== DispatchAdmissionCheck.controllerName) {
          // Another controller's check (as Kueue's own check controllers, by controllerName): its
          // entries on the Workloads are that controller's to set.
          problems.push(
            `${DispatchAdmissionCheck.kind} ${config.kueue.admissionCheck}: spec.controllerName is ${JSON.stringify(controller)}, not ${DispatchAdmissionCheck.controllerName}; no Workload is marked`,
          );
        } else {
          const [workloadList, trainJobList] = await Promise.all([
            fromWatch(workloadKind, Labels.kueueJobUid, () => true) ??
              ask(() => calls.list(workloadKind, config.namespace, Labels.kueueJobUid)),
            // dispatch's TrainJobs all carry the job-id label, so the Watches' feed holds them.
            fromWatch(TRAINJOBS, Labels.jobId, (t) => t.metadata?.labels?.[Labels.managedBy] === LabelValues.managedBy) ??
              ask(() => calls.list(TRAINJOBS, config.namespace, `${Labels.managedBy}=${LabelValues.managedBy}`)),
          ]);
          for (const [what, answer] of [['Workloads', workloadList], ['TrainJobs', trainJobList]] as const) {
            if (answer.answered === 'definite') {
              counters.refused++;
              problems.push(`listing the ${what} of ${config.namespace}: ${describeRefusal(answer)}`);
            }
          }
          if (workloadList.answered === 'ok' && trainJobList.answered === 'ok') {
            const ready = workloadsToMarkReady(
              (workloadList.value.items ?? []) as Workload[],
              trainJobsByUid((trainJobList.value.items ?? []) as TrainJob[]),
              config,
              at,
            );
            // One at a time: a pass has few to write, and a stale one says nothing of the next.
            for (const planned of ready) await write(planned);
          }
        }
      }
    } catch (error) {
      problems.push(error instanceof Unanswered ? `${error.message}; retried next pass` : `unexpected: ${(error as Error).message}`);
    }

    const summary = problems.join('; ');
    // A pass cut short by shutdown has nothing to report.
    if (summary !== lastProblems && !signal?.aborted) {
      if (summary) log('admission check controller: pass incomplete', { problems });
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
        await pass(signal).catch((error: unknown) => log('admission check controller: pass failed', { error: String(error) }));
        await sleepUnlessAborted(MIN_GAP_MS, signal);
        const left = Math.max(0, intervalMs - (Date.now() - started));
        await Promise.race([sleepUnlessAborted(left, signal), ...(changed ? [changed] : [])]);
      }
      log('admission check controller stopped', { ...counters });
    },
  };
}
