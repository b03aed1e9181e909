// dispatch's gauges and the admission check controller's counters: read from what the worker holds
// when Prometheus scrapes (the gates of its latest preflight, the controller's counters, the open
// workflows as Temporal counts them), so nothing has to remember to update them.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { BackendGates } from '../model/results.js';
import type { AdmissionControllerCounters } from '../core/admission/counters.js';
import { workerClusterGates } from '../core/worker-cluster-gates.js';
import { WATCH_WAIT_BOUNDS, type OpenWorkflowCounts, type WatchWaitBound } from './open-workflows.js';

export const GATES = ['reach', 'write', 'start'] as const;

/** What the worker gives its metrics to read at each scrape; each part is optional (plain mode has no controller). */
export interface WorkerState {
  /** The latest preflight's gates; undefined before the first has ended. */
  gates?: () => BackendGates | undefined;
  /** The MultiKueue worker clusters of the configuration (kueue.multiKueue), by name. */
  workerClusters?: readonly string[];
  /** MultiKueue: whether the worker's feed of each worker cluster's pods is in step (worker-pod-watch.ts). */
  podFeeds?: () => ReadonlyMap<string, boolean>;
  /** The admission check controller's counters (Kueue mode). */
  admission?: () => Readonly<AdmissionControllerCounters>;
  /** The open workflows of the task queue, as Temporal's visibility counts them (open-workflows.ts). */
  openWorkflows?: () => Promise<OpenWorkflowCounts | undefined>;
}

/** Registers the gauges and counters on the registry; observe() says where to read them. */
export function createStateMetrics(registry: Registry): { observe(state: WorkerState): void } {
  let state: WorkerState = {};
  const registers = [registry];

  new Gauge({
    name: 'dispatch_gate_proven',
    help: "1 while the latest preflight proved the gate (reach, write, start), else 0 (unproven, unknown, or no preflight has ended yet); a Start is refused at step 1 while a gate is 0",
    labelNames: ['gate'] as const,
    registers,
    collect() {
      this.reset();
      if (!state.gates) return;
      const gates = state.gates();
      for (const gate of GATES) this.set({ gate }, gates?.[gate] ? 1 : 0);
    },
  });

  new Gauge({
    name: 'dispatch_worker_cluster_gate_proven',
    help: "MultiKueue: 1 while the latest preflight proved the worker cluster (the write gate's reviews there allowed, and no gate's reason names it), else 0 (denied, unanswered, or not reviewed: the write gate unproven); none before the first preflight has ended",
    labelNames: ['cluster'] as const,
    registers,
    collect() {
      this.reset();
      if (!state.gates || !state.workerClusters) return;
      for (const [cluster, proven] of workerClusterGates(state.gates(), state.workerClusters)) this.set({ cluster }, proven ? 1 : 0);
    },
  });

  new Gauge({
    name: 'dispatch_worker_cluster_pod_feed_in_step',
    help: "MultiKueue: 1 while this worker's watch of the worker cluster's pods is in step, else 0 (not yet listed, unanswered, or refused: no list or watch on pods there). While 0, a job that fails on that cluster after its pods are gone has no exit code in its Outcome",
    labelNames: ['cluster'] as const,
    registers,
    collect() {
      this.reset();
      if (!state.podFeeds) return;
      for (const [cluster, inStep] of state.podFeeds()) this.set({ cluster }, inStep ? 1 : 0);
    },
  });

  const counts = async () => (state.openWorkflows ? state.openWorkflows() : undefined);
  const openGauge = (name: string, help: string, read: (c: OpenWorkflowCounts) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.reset();
        const found = await counts();
        if (found) this.set(read(found));
      },
    });
  openGauge('dispatch_watches_waiting', "WatchTrainJob workflows open on the worker's task queue (Temporal's visibility count)", (c) => c.watchesWaiting);
  openGauge('dispatch_starts_in_flight', "StartTrainJob workflows open on the worker's task queue (Temporal's visibility count)", (c) => c.startsInFlight);
  new Gauge({
    name: 'dispatch_watches_waited_longer_than',
    help: "WatchTrainJob workflows open on the worker's task queue whose current run started more than `duration` ago (1h, 24h, 168h)",
    labelNames: ['duration'] as const,
    registers,
    async collect() {
      this.reset();
      const found = await counts();
      if (!found) return;
      for (const duration of Object.keys(WATCH_WAIT_BOUNDS) as WatchWaitBound[]) this.set({ duration }, found.watchesWaitedLongerThan[duration]);
    },
  });

  // Counters of the controller's own tallies: each scrape copies them (they only grow), so the
  // controller keeps plain numbers and knows nothing of Prometheus.
  const admissionCounter = <L extends string>(name: string, help: string, labelNames: readonly L[], read: (c: Readonly<AdmissionControllerCounters>) => [Partial<Record<L, string>>, number][]) =>
    new Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        if (!state.admission) return;
        for (const [labels, value] of read(state.admission())) this.inc(labels, value);
      },
    });
  admissionCounter('dispatch_admission_passes_total', 'Passes of the admission check controller that ended, by result: complete (every call answered, every refusal a stale write) or incomplete', ['result'], (c) => [
    [{ result: 'complete' }, c.complete],
    [{ result: 'incomplete' }, c.incomplete],
  ]);
  admissionCounter('dispatch_admission_writes_total', "Status writes of the admission check controller that applied, by object: AdmissionCheck (set Active), Workload (dispatch's check set Ready) WorkloadUndo (a Ready taken back because its TrainJob was held: Pending, or Retry once admitted) or WorkloadNudge (MultiKueue: a Ready written again because MultiKueue left the Workload with no nominated worker cluster)", ['object'], (c) => [
    [{ object: 'AdmissionCheck' }, c.activeWrites],
    [{ object: 'Workload' }, c.readyWrites],
    [{ object: 'WorkloadUndo' }, c.undoWrites],
    [{ object: 'WorkloadNudge' }, c.nudgeWrites],
  ]);
  admissionCounter('dispatch_admission_stale_writes_total', 'Writes of the admission check controller whose object had changed or gone since it was read (another writer came first); the next pass re-reads', [], (c) => [[{}, c.stale]]);
  admissionCounter('dispatch_admission_errors_total', 'Calls of the admission check controller that failed, by kind: unanswered (retried next pass) or refused (a definite refusal other than a stale write, e.g. 403)', ['kind'], (c) => [
    [{ kind: 'unanswered' }, c.unanswered],
    [{ kind: 'refused' }, c.refused],
  ]);

  return {
    observe(next: WorkerState) {
      state = next;
    },
  };
}
