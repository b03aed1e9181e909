// The configuration file (docs/contract.md §5), validated with every error named. Defaults are the
// contract's; durations are Go duration strings.
import { z } from 'zod';
import { Dispatch } from './constants.js';
import { parseGoDuration } from './duration.js';
import { DNS1123_SUBDOMAIN, RuntimeKindSchema } from './request.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** "<Kind>/<name>" of a Trainer runtime. */
export const RuntimeNameSchema = z
  .string()
  .refine((s) => {
    const [kind, name, ...rest] = s.split('/');
    return rest.length === 0 && RuntimeKindSchema.safeParse(kind).success && name !== undefined && DNS1123_SUBDOMAIN.test(name);
  }, { error: 'must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"' });

/** The value as a plain object, or an empty one (a field of the wrong type is reported on its own). */
const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const goDurationAbove0 = () =>
  z
    .string()
    .refine((s) => parseGoDuration(s) !== undefined, { error: 'not a Go duration (e.g. "30s", "1m30s")' })
    .refine((s) => (parseGoDuration(s) ?? 1n) > 0n, { error: 'must be above 0' });
const positiveDuration = (fallback: string) => goDurationAbove0().default(fallback);

/**
 * One worker cluster of MultiKueue (docs/multikueue.md): the name Kueue reports for it (its
 * MultiKueueCluster, a Workload's status.clusterName) and how the worker reaches its API server, a
 * kubeconfig file as for the manager cluster (`kubeconfig`), here required: the defaults
 * (KUBECONFIG, ~/.kube/config, in-cluster) reach the manager.
 */
export const WorkerClusterSchema = z.strictObject({
  name: z
    .string()
    .regex(DNS1123_SUBDOMAIN, { error: 'not a valid MultiKueueCluster name (DNS-1123 subdomain)' })
    .max(253, { error: 'longer than 253 characters' }),
  kubeconfig: z.string().min(1, { error: 'required: the path of the kubeconfig file that reaches this worker cluster' }),
});
export type WorkerCluster = z.infer<typeof WorkerClusterSchema>;

/** Kueue's MultiKueue (docs/contract.md §11): the worker clusters where its TrainJobs may run. Kueue mode only. */
export const MultiKueueConfigSchema = z
  .strictObject({
    clusters: z.array(WorkerClusterSchema).min(1, { error: 'must name at least one worker cluster' }),
  })
  .superRefine((multiKueue, ctx) => {
    // Runs even when an entry failed (every error named at once), so entries may be partial.
    const clusters: unknown[] = Array.isArray(multiKueue.clusters) ? multiKueue.clusters : [];
    for (const field of ['name', 'kubeconfig'] as const) {
      const first = new Map<string, number>();
      clusters.forEach((cluster, i) => {
        const value = asRecord(cluster)[field];
        if (typeof value !== 'string' || value === '') return;
        const earlier = first.get(value);
        if (earlier === undefined) first.set(value, i);
        else ctx.addIssue({ code: 'custom', path: ['clusters', i, field], message: `${JSON.stringify(value)} is also clusters[${earlier}]'s: each worker cluster is named and reached once` });
      });
    }
  }, { when: (payload) => asRecord(payload.value) === payload.value });
export type MultiKueueConfig = z.infer<typeof MultiKueueConfigSchema>;

export const KueueConfigSchema = z.strictObject({
  queue: z.string().default(''),
  admissionCheck: z.string().default(''),
  gate: z.string().regex(QUALIFIED_NAME, { error: 'not a valid annotation value for a gate' }).default(Dispatch.defaultGate),
  workloadVersion: z.enum(['v1beta1', 'v1beta2']).default('v1beta2'),
  /** Absent (the default): one cluster, and read-back refuses the managedBy MultiKueue sets (docs/contract.md §4a). */
  multiKueue: MultiKueueConfigSchema.optional(),
});

export const ConfigSchema = z
  .strictObject({
    namespace: z
      .string()
      .regex(DNS1123_LABEL, { error: 'not a valid namespace name (DNS-1123 label)' })
      .max(63, { error: 'longer than 63 characters' }),
    runtimes: z.array(RuntimeNameSchema).nullish().transform((v) => v ?? []),
    mode: z.enum(['plain', 'kueue']).default('plain'),
    kueue: KueueConfigSchema.default(KueueConfigSchema.parse({})),
    timeouts: z
      .strictObject({
        workload: positiveDuration('60s'),
        // Every Kubernetes call's activity is timed by CallBound in whole milliseconds, and Temporal
        // reads 0 as "no timeout" and refuses the activity: a Start would retry that forever.
        call: positiveDuration('30s').refine(
          (s) => {
            const nanos = parseGoDuration(s);
            return nanos === undefined || nanos <= 0n || nanos >= 1_000_000n;
          },
          { error: 'must be at least 1ms (Kubernetes calls are timed in whole milliseconds)' },
        ),
        // The longest a Watch waits without a wake before it reads its TrainJob again (a lost wake costs at most this).
        watchRecheck: positiveDuration('15m'),
        // How long Trainer's webhook may fail to see a Start's runtime copy, from the copy's
        // creation, before step 6 refuses the Start rather than asking for a retry (docs/contract.md §6a).
        runtimeLag: positiveDuration('5m'),
        // How long a worker told to stop (SIGTERM) lets its activities run before it cancels them.
        // Absent: derived from workload and call, longer than the longest activity (core/drain.ts).
        drain: goDurationAbove0().optional(),
      })
      .default({ workload: '60s', call: '30s', watchRecheck: '15m', runtimeLag: '5m' }),
    gpuResource: z.string().regex(QUALIFIED_NAME, { error: 'not a valid resource name' }).default('nvidia.com/gpu'),
    allowRankRestart: z.boolean().default(false),
    publish: z
      .strictObject({
        via: z.enum(['env', 'initContainer']).default('env'),
        initContainer: z.string().regex(DNS1123_LABEL, { error: 'not a valid container name' }).default('dispatch-publish'),
      })
      .default({ via: 'env', initContainer: 'dispatch-publish' }),
    probeRuntime: RuntimeNameSchema.default('ClusterTrainingRuntime/dispatch-probe'),
    temporal: z.strictObject({ taskQueue: z.string().min(1, { error: 'must not be empty' }).default(Dispatch.defaultTaskQueue) }).default({ taskQueue: Dispatch.defaultTaskQueue }),
    kubeconfig: z.string().default(''),
  })
  .superRefine(
    (config, ctx) => {
      // Runs even when another field failed (every error named at once), so the value may be partial.
      const kueue: Partial<Record<'queue' | 'admissionCheck' | 'multiKueue', unknown>> = asRecord(config.kueue);
      if (config.mode !== 'kueue') {
        if (kueue.multiKueue !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['kueue', 'multiKueue'], message: `only in kueue mode (mode is ${JSON.stringify(config.mode ?? 'plain')})` });
        }
        return;
      }
      for (const field of ['queue', 'admissionCheck'] as const) {
        const value = kueue[field];
        if (value === undefined || value === null || value === '') {
          ctx.addIssue({ code: 'custom', path: ['kueue', field], message: 'required in kueue mode' });
        }
      }
      const multiKueue = asRecord(kueue.multiKueue);
      const manager = typeof config.kubeconfig === 'string' ? config.kubeconfig : '';
      const clusters: unknown[] = Array.isArray(multiKueue.clusters) ? multiKueue.clusters : [];
      clusters.forEach((cluster, i) => {
        if (manager !== '' && asRecord(cluster).kubeconfig === manager) {
          ctx.addIssue({ code: 'custom', path: ['kueue', 'multiKueue', 'clusters', i, 'kubeconfig'], message: 'is the manager cluster\'s kubeconfig: a worker cluster is another API server' });
        }
      });
    },
    { when: (payload) => asRecord(payload.value) === payload.value },
  )
  .describe('dispatch-kubeflow configuration');

/** The configuration as read from its file, before defaults. */
export type ConfigInput = z.input<typeof ConfigSchema>;
/** The configuration with every default applied: what the workflows and activities receive. */
export type Config = z.output<typeof ConfigSchema>;
export type Mode = Config['mode'];
