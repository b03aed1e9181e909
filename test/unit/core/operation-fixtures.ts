// TrainJobs, Workloads and pods as Trainer v2.3.0 and Kueue v0.19.2 write them, for the tests of
// the decisions after Start (operations, admission): builders for examples, and
// fast-check arbitraries over every combination the decisions read. The examples pass the real
// CRDs' schemas (phase.test.ts checks).
import fc from 'fast-check';
import { Annotations, Dispatch, LabelValues, Labels } from '../../../src/model/constants.js';
import type { TrainJob, Workload } from '../../../src/model/kube.js';
import { OperationAnnotations } from '../../../src/model/constants.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import type { Condition, Pod } from '../../../src/model/kube.js';
import type { OperationConfig, Observed } from '../../../src/core/operations/observed.js';
import { config, KUEUE } from '../../golden/cases.js';

export const NS = 'ml-jobs';
export const NAME = 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12';
export const UID = '0b5b2c1e-1111-2222-3333-444455556666';
export const OTHER_UID = '9f9f9f9f-aaaa-bbbb-cccc-ddddeeeeffff';
export const REF: TrainJobRef = { namespace: NS, name: NAME, uid: UID };
export const JOB_ID = '01jd0q3j0y6q7j7z4w2x5v8k9m';
export const GATE = Dispatch.defaultGate;
export const CHECK = 'dispatch';
export const T0 = '2026-01-01T00:00:00Z';
export const T1 = '2026-01-01T00:05:00Z';

export const PLAIN: OperationConfig = config();
export const KUEUE_CONFIG: OperationConfig = config(KUEUE);
export const configOf = (mode: 'plain' | 'kueue'): OperationConfig =>
  mode === 'plain' ? PLAIN : KUEUE_CONFIG;

export const DISPATCH_LABELS = {
  [Labels.managedBy]: LabelValues.managedBy,
  [Labels.jobId]: JOB_ID,
  [Labels.generation]: '3',
  [Labels.submission]: '12',
};

/** A metav1.Condition, with every field the CRDs require. */
export function condition(
  type: string,
  status: 'True' | 'False' = 'True',
  reason = type,
  message = '',
  at = T0,
): Condition {
  return { type, status, reason, message, lastTransitionTime: at };
}

export interface TrainJobShape {
  uid?: string;
  rv?: string;
  labels?: Record<string, string>;
  suspend?: boolean;
  held?: string;
  /** The plain-mode `opened` annotation's value. */
  opened?: string;
  gatedBy?: string;
  conditions?: Condition[];
  deleting?: boolean;
}

export function trainJob(shape: TrainJobShape = {}): TrainJob {
  const annotations: Record<string, string> = {
    [Annotations.attemptToken]: '1-0123456789ab',
    ...(shape.held !== undefined ? { [OperationAnnotations.held]: shape.held } : {}),
    ...(shape.opened !== undefined ? { [OperationAnnotations.opened]: shape.opened } : {}),
    ...(shape.gatedBy !== undefined ? { [Annotations.kueueAdmissionGatedBy]: shape.gatedBy } : {}),
  };
  return {
    apiVersion: 'trainer.kubeflow.org/v1alpha1',
    kind: 'TrainJob',
    metadata: {
      name: NAME,
      namespace: NS,
      uid: shape.uid ?? UID,
      resourceVersion: shape.rv ?? '100',
      labels: shape.labels ?? { ...DISPATCH_LABELS },
      annotations,
      ...(shape.deleting ? { deletionTimestamp: T1 } : {}),
    },
    spec: {
      runtimeRef: {
        apiGroup: 'trainer.kubeflow.org',
        kind: 'ClusterTrainingRuntime',
        name: 'torch-distributed',
      },
      trainer: { image: 'ghcr.io/example/train:1.4', command: ['python', 'train.py'], env: [], numNodes: 2 },
      runtimePatches: [],
      ...(shape.suspend !== undefined ? { suspend: shape.suspend } : {}),
    },
    ...(shape.conditions?.length ? { status: { conditions: shape.conditions } } : {}),
  };
}

export interface WorkloadShape {
  jobUid?: string;
  rv?: string;
  active?: boolean;
  conditions?: Condition[];
  /** dispatch's check state; undefined: the Workload does not list it. */
  check?: string;
  checkMessage?: string;
  /** Another check listed before dispatch's. */
  otherCheck?: string;
  deleting?: boolean;
  namespace?: string;
  name?: string;
  /** MultiKueue: the worker cluster Kueue chose (status.clusterName). */
  cluster?: string | undefined;
}

export function workload(shape: WorkloadShape = {}): Workload {
  const checks = [
    ...(shape.otherCheck !== undefined
      ? [{ name: 'other-check', state: shape.otherCheck, message: '', lastTransitionTime: T0 }]
      : []),
    ...(shape.check !== undefined
      ? [{ name: CHECK, state: shape.check, message: shape.checkMessage ?? '', lastTransitionTime: T0 }]
      : []),
  ];
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'Workload',
    metadata: {
      name: shape.name ?? `trainjob-${NAME}-1a2b3`,
      namespace: shape.namespace ?? NS,
      uid: 'wl-uid-1',
      resourceVersion: shape.rv ?? '200',
      labels: { [Labels.kueueJobUid]: shape.jobUid ?? UID },
      annotations: { [Annotations.kueueAdmissionGatedBy]: GATE },
      ...(shape.deleting ? { deletionTimestamp: T1 } : {}),
    },
    spec: {
      queueName: 'user-queue',
      podSets: [
        { name: 'node', count: 2, template: { spec: { containers: [{ name: 'node', image: 'x' }] } } },
      ],
      ...(shape.active !== undefined ? { active: shape.active } : {}),
    },
    status: {
      ...(shape.conditions?.length ? { conditions: shape.conditions } : {}),
      ...(checks.length > 0 ? { admissionChecks: checks } : {}),
      ...(shape.cluster !== undefined ? { clusterName: shape.cluster } : {}),
    },
  };
}

/** A pod of the TrainJob with one `node` container status. */
export function pod(
  name: string,
  node: { exitCode?: number; finishedAt?: string; lastExitCode?: number; lastFinishedAt?: string },
  labels: Record<string, string> = { [Labels.jobId]: JOB_ID, [Labels.submission]: '12' },
): Pod {
  const terminated = (exitCode: number | undefined, finishedAt: string | undefined) =>
    exitCode === undefined
      ? undefined
      : { terminated: { exitCode, reason: 'Error', ...(finishedAt ? { finishedAt } : {}) } };
  return {
    metadata: { name, namespace: NS, labels },
    status: {
      containerStatuses: [
        {
          name: 'node',
          ...(terminated(node.exitCode, node.finishedAt)
            ? { state: terminated(node.exitCode, node.finishedAt) }
            : { state: { running: {} } }),
          ...(terminated(node.lastExitCode, node.lastFinishedAt)
            ? { lastState: terminated(node.lastExitCode, node.lastFinishedAt) }
            : {}),
        },
      ],
    },
  };
}

// ---- Arbitraries

const someOf = <T>(...items: T[]) => fc.subarray(items);
/** Undefined `none` times in `none + 1`, else one of the items. */
const sometimes = <T>(none: number, ...items: T[]) =>
  fc.oneof(
    { arbitrary: fc.constant(undefined), weight: none },
    { arbitrary: fc.constantFrom(...items), weight: 1 },
  );

export const arbTrainJobConditions = fc
  .tuple(
    sometimes(
      4,
      condition('Complete', 'True', 'AllJobsCompleted', 'jobset completed successfully', T1),
      condition('Complete', 'False'),
    ),
    sometimes(
      4,
      condition('Failed', 'True', 'FailedJobs', 'jobset failed due to one or more job failures', T1),
      condition('Failed', 'True', 'DeadlineExceeded', 'TrainJob exceeded its active deadline', T1),
      condition('Failed', 'False'),
    ),
    sometimes(1, condition('Suspended', 'True', 'Suspended'), condition('Suspended', 'False', 'Resumed')),
  )
  .map((cs) => cs.filter((c): c is Condition => c !== undefined));

export const arbGatedBy = fc.constantFrom(
  undefined,
  GATE,
  `example.com/other,${GATE}`,
  `${GATE},example.com/later`,
  `a.example.com/x, ${GATE} ,b.example.com/y`,
  'example.com/other',
);

export const arbLabels = fc.constantFrom<Record<string, string>>(
  ...Array<Record<string, string>>(6).fill(DISPATCH_LABELS),
  { ...DISPATCH_LABELS, [Labels.managedBy]: 'someone-else' },
  Object.fromEntries(Object.entries(DISPATCH_LABELS).filter(([k]) => k !== Labels.jobId)),
  Object.fromEntries(Object.entries(DISPATCH_LABELS).filter(([k]) => k !== Labels.submission)),
);

export const arbTrainJob = fc
  .record({
    uid: fc.constantFrom(UID, UID, UID, UID, UID, OTHER_UID),
    rv: fc.integer({ min: 1, max: 999 }).map(String),
    labels: arbLabels,
    suspend: fc.constantFrom(true, false, undefined),
    held: fc.constantFrom(undefined, 'true', 'false'),
    opened: fc.constantFrom(undefined, undefined, 'true', 'false'),
    gatedBy: arbGatedBy,
    conditions: arbTrainJobConditions,
    deleting: fc.constantFrom(false, false, false, false, true),
  })
  .map((shape) => trainJob(shape));

export const arbWorkloadConditions = fc
  .tuple(
    someOf(
      condition('QuotaReserved', 'True'),
      condition('Admitted', 'True'),
      condition('Finished', 'True', 'Succeeded'),
    ),
    sometimes(
      2,
      condition('Evicted', 'True', 'Deactivated', 'The workload is deactivated'),
      condition(
        'Evicted',
        'True',
        'DeactivatedDueToRequeuingLimitExceeded',
        'The workload is deactivated due to exceeding the maximum number of re-queuing retries',
      ),
      condition('Evicted', 'True', 'Preempted', 'Preempted to accommodate a higher priority Workload'),
      condition('Evicted', 'False', 'DeactivatedDueToMaximumExecutionTimeExceeded'),
    ),
    sometimes(
      9,
      condition(
        'DeactivationTarget',
        'True',
        'RequeuingLimitExceeded',
        'exceeding the maximum number of re-queuing retries',
      ),
    ),
  )
  .map(([base, evicted, target]) => [...base, ...(evicted ? [evicted] : []), ...(target ? [target] : [])]);

export const arbWorkloadShape: fc.Arbitrary<WorkloadShape> = fc.record({
  jobUid: fc.constantFrom(UID, UID, UID, OTHER_UID),
  rv: fc.integer({ min: 1, max: 999 }).map(String),
  active: fc.constantFrom(true, false, undefined),
  conditions: arbWorkloadConditions,
  check: fc.constantFrom(undefined, 'Pending', 'Pending', 'Pending', 'Ready', 'Ready', 'Retry', 'Rejected'),
  otherCheck: fc.constantFrom(undefined, 'Pending', 'Ready'),
  deleting: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
  cluster: fc.constantFrom(undefined, undefined, 'worker-1', ''),
});

export const arbWorkload = arbWorkloadShape.map(workload);

/** Everything a decision may read, in either mode (plain mode ignores the Workload). */
export const arbObserved: fc.Arbitrary<Observed> = fc
  .record({
    mode: fc.constantFrom('plain' as const, 'kueue' as const),
    trainJob: fc.option(arbTrainJob, { nil: undefined, freq: 8 }),
    workload: fc.option(arbWorkload, { nil: undefined, freq: 4 }),
  })
  .map(({ mode, trainJob: tj, workload: wl }) => ({
    config: configOf(mode),
    ...(tj !== undefined ? { trainJob: tj } : {}),
    ...(wl !== undefined ? { workload: wl } : {}),
  }));
