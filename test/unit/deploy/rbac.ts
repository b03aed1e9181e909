// deploy/kubernetes's RBAC as requests the authorizer judges: each verb of each rule, one access
// each (one per name when a rule has resourceNames), in the attributes a SelfSubjectAccessReview
// asks with. And what the worker's calls need: the write gate's checks (Start and its
// compensation, docs/contract.md §8) plus the calls of Open, Hold, Release, Stop, Watch and the
// admission check controller (src/activities/operation-activities.ts, watch-activities.ts,
// batched-lists.ts through objects.ts), so both tests hold the manifests to the same list.
import type { V1ClusterRole, V1PolicyRule, V1ResourceAttributes, V1Role } from '@kubernetes/client-node';
import { writeGateChecks } from '../../../src/activities/gate-activities.js';
import type { Config } from '../../../src/model/config.js';
import { Kueue, Trainer } from '../../../src/model/constants.js';
import { all, type Manifest } from './manifests.js';

/** One request's attributes: a namespace for a Role's, none for a ClusterRole's (cluster-scoped). */
export type Access = Required<Pick<V1ResourceAttributes, 'verb' | 'group' | 'resource'>> &
  Pick<V1ResourceAttributes, 'subresource' | 'name' | 'namespace'>;

/** `verb resource[/subresource][ name] in namespace|cluster-wide`, e.g. for sorting and messages. */
export function describeAccess(a: Access): string {
  const resource = `${a.resource}${a.subresource ? `/${a.subresource}` : ''}.${a.group || 'core'}`;
  return `${a.verb} ${resource}${a.name ? ` ${a.name}` : ''} ${a.namespace ? `in ${a.namespace}` : 'cluster-wide'}`;
}

function accessesOf(rules: V1PolicyRule[] | undefined, namespace: string | undefined): Access[] {
  return (rules ?? []).flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((group) =>
      (rule.resources ?? []).flatMap((full) => {
        const [resource, subresource] = full.split('/') as [string, string | undefined];
        const names = rule.resourceNames ?? [undefined];
        return rule.verbs.flatMap((verb) =>
          names.map((name) => ({
            verb,
            group,
            resource,
            ...(subresource ? { subresource } : {}),
            ...(name ? { name } : {}),
            ...(namespace ? { namespace } : {}),
          })),
        );
      }),
    ),
  );
}

/** Every access the Roles (in their namespace) and ClusterRoles (cluster-wide) grant. */
export function granted(objects: Manifest[]): Access[] {
  return [
    ...all<V1Role>(objects, 'Role').flatMap((r) => accessesOf(r.rules, r.metadata.namespace)),
    ...all<V1ClusterRole>(objects, 'ClusterRole').flatMap((r) => accessesOf(r.rules, undefined)),
  ];
}

/** The write gate's reviews (docs/contract.md §8): Start and its compensation. */
export function writeGateAccesses(config: Config): Access[] {
  return writeGateChecks(config.namespace).map(({ verb, resource, namespace }) => ({
    verb,
    group: Trainer.group,
    resource,
    ...(namespace ? { namespace } : {}),
  }));
}

/**
 * What the operations after Start call beyond the write gate's reviews (docs/deploy.md, "RBAC, verb
 * by verb"), with the call that needs it. Kueue mode adds the Workloads and dispatch's AdmissionCheck.
 */
export function operationAccesses(config: Config): (Access & { calledBy: string })[] {
  const namespace = config.namespace;
  const plain = [
    { verb: 'list', group: Trainer.group, resource: Trainer.trainJobPlural, namespace, calledBy: "Watch's batched checks by job-id label; the admission check controller" },
    { verb: 'watch', group: Trainer.group, resource: Trainer.trainJobPlural, namespace, calledBy: "Watch's checks: one watch of the TrainJobs with a job-id label" },
    { verb: 'list', group: '', resource: 'pods', namespace, calledBy: "Watch: a failed TrainJob's pods, for the exit code" },
  ];
  if (config.mode !== 'kueue') return plain;
  const check = config.kueue.admissionCheck;
  return [
    ...plain,
    { verb: 'list', group: Kueue.group, resource: Kueue.workloadPlural, namespace, calledBy: 'step 9, Open/Hold/Release/Stop, Watch, the admission check controller' },
    { verb: 'watch', group: Kueue.group, resource: Kueue.workloadPlural, namespace, calledBy: 'step 9 and Watch: one watch of the Workloads with a job-uid label' },
    { verb: 'patch', group: Kueue.group, resource: Kueue.workloadPlural, namespace, calledBy: 'Hold and Release: spec.active' },
    { verb: 'patch', group: Kueue.group, resource: Kueue.workloadPlural, subresource: 'status', namespace, calledBy: "the admission check controller: dispatch's check Ready" },
    { verb: 'get', group: Kueue.group, resource: 'admissionchecks', name: check, calledBy: "the admission check controller: dispatch's AdmissionCheck" },
    { verb: 'patch', group: Kueue.group, resource: 'admissionchecks', subresource: 'status', name: check, calledBy: 'the admission check controller: Active True' },
    // With kueue.multiKueue only: Watch reads the MultiKueueCluster of its job's worker cluster, by name.
    ...(config.kueue.multiKueue?.clusters ?? []).map(({ name }) => ({
      verb: 'get',
      group: Kueue.group,
      resource: 'multikueueclusters',
      name,
      calledBy: "Watch: the job's worker cluster's MultiKueueCluster (Active)",
    })),
  ];
}

/** Everything the worker's calls need, in the mode of `config`. */
export function neededAccesses(config: Config): Access[] {
  return [...writeGateAccesses(config), ...operationAccesses(config).map(({ calledBy: _calledBy, ...a }) => a)];
}

/**
 * Neighbours of what is granted that must be denied: other verbs on the same resources, other
 * subresources, other namespaces, and (Kueue mode) another AdmissionCheck's name.
 */
export function deniedAccesses(config: Config, otherNamespace: string): Access[] {
  const namespace = config.namespace;
  const trainer = (verb: string, resource: string, more: Partial<Access> = {}): Access => ({ verb, group: Trainer.group, resource, namespace, ...more });
  const pods = (verb: string, more: Partial<Access> = {}): Access => ({ verb, group: '', resource: 'pods', namespace, ...more });
  const plain: Access[] = [
    ...['update', 'deletecollection'].map((v) => trainer(v, Trainer.trainJobPlural)),
    ...['list', 'watch'].flatMap((v) => [
      trainer(v, Trainer.trainJobPlural, { namespace: otherNamespace }),
      trainer(v, Trainer.trainJobPlural, { namespace: undefined }),
    ]),
    trainer('patch', Trainer.trainJobPlural, { subresource: 'status' }),
    ...['list', 'watch', 'update'].map((v) => trainer(v, Trainer.trainingRuntimePlural)),
    ...['get', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'].map((v) => pods(v)),
    pods('get', { subresource: 'log' }),
    pods('create', { subresource: 'exec' }),
    pods('list', { namespace: otherNamespace }),
    pods('list', { namespace: undefined }),
    { verb: 'list', group: '', resource: 'secrets', namespace },
    { verb: 'list', group: '', resource: 'events', namespace },
  ];
  if (config.mode !== 'kueue') return plain;
  const check = config.kueue.admissionCheck;
  const workloads = (verb: string, more: Partial<Access> = {}): Access => ({ verb, group: Kueue.group, resource: Kueue.workloadPlural, namespace, ...more });
  const checks = (verb: string, more: Partial<Access> = {}): Access => ({ verb, group: Kueue.group, resource: 'admissionchecks', ...more });
  return [
    ...plain,
    ...['get', 'create', 'update', 'delete', 'deletecollection'].map((v) => workloads(v)),
    workloads('update', { subresource: 'status' }),
    ...['list', 'watch'].flatMap((v) => [
      workloads(v, { namespace: otherNamespace }),
      workloads(v, { namespace: undefined }),
    ]),
    workloads('patch', { namespace: otherNamespace }),
    workloads('patch', { subresource: 'status', namespace: otherNamespace }),
    checks('get', { name: `not-${check}` }),
    checks('get'),
    checks('list'),
    checks('watch'),
    checks('patch', { subresource: 'status', name: `not-${check}` }),
    checks('patch', { name: check }),
    checks('update', { subresource: 'status', name: check }),
    checks('delete', { name: check }),
    checks('create'),
    { verb: 'patch', group: Kueue.group, resource: 'clusterqueues', name: check },
    ...(config.kueue.multiKueue
      ? [
          ...['create', 'update', 'patch', 'delete'].map((verb) => ({ verb, group: Kueue.group, resource: 'multikueueclusters' })),
          { verb: 'list', group: Kueue.group, resource: 'multikueueconfigs' },
          { verb: 'get', group: '', resource: 'secrets', namespace: 'kueue-system' },
        ]
      : []),
    { verb: 'patch', group: Kueue.group, resource: 'localqueues', subresource: 'status', namespace, name: config.kueue.queue },
  ];
}

/**
 * What the worker needs on each MultiKueue worker cluster, in the configuration's namespace
 * (deploy/kubernetes/multikueue-worker-rbac.yaml, docs/multikueue.md): the runtime copies of step 5,
 * its undo, Start's undo and the collector, and the pods there (Watch's exit code: listed by Watch, watched by the worker).
 */
export function workerClusterAccesses(namespace: string): Access[] {
  return [
    ...['create', 'get', 'list', 'delete'].map((verb) => ({ verb, group: Trainer.group, resource: Trainer.trainingRuntimePlural, namespace })),
    // Watch's list of a failed job's pods; the worker's watch of them (a list, then a watch) for its memory of their exit codes.
    ...['list', 'watch'].map((verb) => ({ verb, group: '', resource: 'pods', namespace })),
  ];
}
