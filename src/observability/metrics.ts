// dispatch's own Prometheus metrics (prom-client), beside the Temporal SDK's (which Core exports on
// the worker's --metrics address). One registry per worker, so tests can run several in a process.
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { createReleaseMetrics, type ReleaseMetrics } from './release-metrics.js';
import { ERROR_TYPES } from '../model/errors.js';
import { OPERATIONS } from '../contract/names.js';
import { ACTIVITY_LABELS, isFold } from '../core/start/steps.js';
import { createStateMetrics, type WorkerState } from './state-metrics.js';

/** How an operation (a Start too) closed: its workflow completed, failed or was cancelled. */
export const CLOSE_OUTCOMES = ['success', 'failure', 'cancelled'] as const;
export type CloseOutcome = (typeof CLOSE_OUTCOMES)[number];
/** error_type of an operation that did not fail. */
export const NO_ERROR = 'none';
export const COMPENSATION_RESULTS = ['stopped', 'failed'] as const;
export type CompensationResult = (typeof COMPENSATION_RESULTS)[number];

/** Kubernetes calls take milliseconds to seconds; the Workload wait up to timeouts.workload. */
export const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** The operations measured alike (dispatch_operations_total): Start and the five after it. */
export const MEASURED_OPERATIONS = ['start', ...OPERATIONS] as const;
export type MeasuredOperation = (typeof MEASURED_OPERATIONS)[number];

/**
 * From the workflow's start to its close, as the caller waits: a refusal at step 1 in milliseconds, a
 * Start with its Workload wait in seconds to minutes, a Watch as long as the training (hours to days).
 */
export const OPERATION_BUCKETS = [
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
  120,
  300,
  600,
  1800,
  3600,
  4 * 3600,
  24 * 3600,
  7 * 24 * 3600,
];

export interface DispatchMetrics {
  registry: Registry;
  starts: Counter<'outcome' | 'error_type'>;
  operations: Counter<'operation' | 'outcome' | 'error_type'>;
  operationDuration: Histogram<'operation' | 'outcome'>;
  stepDuration: Histogram<'step'>;
  compensations: Counter<'result'>;
  watchUnanswered: Counter<'call'>;
  /** Definite refusals a Watch waits out (docs/contract.md §9c), by call and HTTP status. */
  watchRefused: Counter<'call' | 'status'>;
  /** Changes the worker's watch saw, by what became of their Watch's wake (WAKE_RESULTS). */
  watchWakes: Counter<'result'>;
  /** Release isolation: foreign workflows refused, namespaces sharing the task queue (release-metrics.ts). */
  release: ReleaseMetrics;
  /** Where the gauges and the admission counters read the worker's state at each scrape (state-metrics.ts). */
  observe(state: WorkerState): void;
}

/** The calls of a Watch that may go unanswered: the first read by name, the shared lists, the pod list. */
export const WATCH_CALLS = ['read', 'list', 'pods'] as const;

/**
 * What became of a change the Watch waker heard (src/worker/watch-waker.ts): a wake signalled, no
 * Watch running for it, the signal failed, or nothing sent (`coalesced`: seen already, or its
 * Watch's wake still queued or in flight).
 */
export const WAKE_RESULTS = ['signalled', 'not-watched', 'failed', 'coalesced'] as const;

export function createDispatchMetrics(
  options: { registry?: Registry; processMetrics?: boolean } = {},
): DispatchMetrics {
  const registry = options.registry ?? new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const starts = new Counter({
    name: 'dispatch_starts_total',
    help: 'StartTrainJob workflows closed, by outcome and error type (ErrInvalid, ...; "none" unless the outcome is failure)',
    labelNames: ['outcome', 'error_type'] as const,
    registers: [registry],
  });
  const operations = new Counter({
    name: 'dispatch_operations_total',
    help: 'Operations closed (start, open, hold, release, stop, watch), by outcome and error type ("none" unless the outcome is failure)',
    labelNames: ['operation', 'outcome', 'error_type'] as const,
    registers: [registry],
  });
  const operationDuration = new Histogram({
    name: 'dispatch_operation_duration_seconds',
    help: "Time from an operation's workflow start to its close (a Watch's across continue-as-new), by operation and outcome",
    labelNames: ['operation', 'outcome'] as const,
    buckets: OPERATION_BUCKETS,
    registers: [registry],
  });
  const stepDuration = new Histogram({
    name: 'dispatch_step_duration_seconds',
    help: 'Time each activity attempt took, by the Start step it implements',
    labelNames: ['step'] as const,
    buckets: STEP_BUCKETS,
    registers: [registry],
  });
  const compensations = new Counter({
    name: 'dispatch_compensations_total',
    help: 'Compensations of Starts (stopping what the Start created), by result: stopped, or failed (the Start is ErrOutcomeUnknown)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const watchUnanswered = new Counter({
    name: 'dispatch_watch_unanswered_calls_total',
    help: 'Calls of WatchTrainJob that the Kubernetes API left unanswered (the Watch goes on waiting), by call: read, list or pods',
    labelNames: ['call'] as const,
    registers: [registry],
  });
  const watchRefused = new Counter({
    name: 'dispatch_watch_refused_calls_total',
    help: 'Calls of WatchTrainJob that the Kubernetes API refused with a definite answer the Watch waits out (an RBAC 403 while a restarted API server syncs its authorizer, a 5xx-like Status), by call and status: one that keeps rising is a refusal that persists',
    labelNames: ['call', 'status'] as const,
    registers: [registry],
  });
  const watchWakes = new Counter({
    name: 'dispatch_watch_wakes_total',
    help: "Changes of dispatch TrainJobs and Workloads the worker's watch saw (and, with MultiKueue, of a worker cluster's MultiKueueCluster, one per Watch of a job placed there), by what became of the wake of their Watch: signalled, not-watched (no Watch running), failed, coalesced (nothing sent)",
    labelNames: ['result'] as const,
    registers: [registry],
  });
  // Every series a dashboard expects exists from the start at 0, so that rate() sees the first event.
  starts.inc({ outcome: 'success', error_type: NO_ERROR }, 0);
  starts.inc({ outcome: 'cancelled', error_type: NO_ERROR }, 0);
  for (const type of ERROR_TYPES) starts.inc({ outcome: 'failure', error_type: type }, 0);
  for (const operation of MEASURED_OPERATIONS) {
    operations.inc({ operation, outcome: 'success', error_type: NO_ERROR }, 0);
    operations.inc({ operation, outcome: 'cancelled', error_type: NO_ERROR }, 0);
    for (const type of ERROR_TYPES) operations.inc({ operation, outcome: 'failure', error_type: type }, 0);
    for (const outcome of CLOSE_OUTCOMES) operationDuration.zero({ operation, outcome });
  }
  for (const result of COMPENSATION_RESULTS) compensations.inc({ result }, 0);
  // A fold's steps are timed each by itself (stepInterceptor): the fold has no series of its own.
  for (const [activity, step] of Object.entries(ACTIVITY_LABELS)) if (!isFold(activity)) stepDuration.zero({ step });
  for (const call of WATCH_CALLS) watchUnanswered.inc({ call }, 0);
  for (const result of WAKE_RESULTS) watchWakes.inc({ result }, 0);
  const { observe } = createStateMetrics(registry);
  return {
    registry,
    observe,
    starts,
    operations,
    operationDuration,
    stepDuration,
    compensations,
    watchUnanswered,
    watchRefused,
    watchWakes,
    release: createReleaseMetrics(registry),
  };
}
