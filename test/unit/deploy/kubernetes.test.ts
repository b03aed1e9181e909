// deploy/kubernetes: both kustomizations build, their objects agree with each other (names,
// namespaces, labels and selectors, ports, the configuration), the worker runs locked down, and
// the RBAC is exactly what the write gate checks (docs/contract.md §8) plus what the operations after
// Start call (rbac.ts: Open, Hold, Release, Stop, Watch, and in Kueue mode the admission check controller).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1ConfigMap,
  V1Deployment,
  V1Role,
  V1RoleBinding,
  V1Service,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { Kueue } from '../../../src/model/constants.js';
import { TEMPORAL_CHECK_TIMEOUT_MS } from '../../../src/worker/health.js';
import { drainTimes, podTerminationGraceSeconds } from '../../../src/core/drain.js';
import {
  all,
  CONFIG_KEY,
  CONFIG_MAP,
  configOf,
  KUEUE,
  kustomize,
  one,
  PLAIN,
  readManifests,
  REPO,
  type Manifest,
} from './manifests.js';
import { describeAccess, granted, neededAccesses, operationAccesses, workerClusterAccesses, writeGateAccesses } from './rbac.js';

const builds = { plain: kustomize(PLAIN), kueue: kustomize(KUEUE) };
const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

const deploymentOf = (objects: Manifest[]) => one<V1Deployment>(objects, 'Deployment');
const podOf = (objects: Manifest[]) => deploymentOf(objects).spec!.template.spec!;
const workerOf = (objects: Manifest[]) => podOf(objects).containers[0]!;

describe.each(Object.entries(builds))('deploy/kubernetes, %s mode', (mode, objects) => {
  const config = configOf(objects);

  it('builds the objects of a least-privilege worker and nothing else', () => {
    const kinds = objects.map((o) => o.kind).sort();
    const roles =
      mode === 'kueue'
        ? ['Role', 'Role', 'RoleBinding', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']
        : ['Role', 'RoleBinding'];
    expect(kinds).toEqual(
      [
        'ClusterRole',
        'ClusterRoleBinding',
        'ConfigMap',
        'Deployment',
        'Service',
        'ServiceAccount',
        ...roles,
      ].sort(),
    );
  });

  it(`carries a configuration that passes the config schema, in ${mode} mode`, () => {
    expect(config.mode).toBe(mode);
    // In the cluster the worker uses its service account: an explicit kubeconfig would bypass it.
    expect(config.kubeconfig).toBe('');
  });

  it("puts every namespaced object in the configuration's namespace, where Start creates its objects", () => {
    for (const o of objects.filter((o) => !o.kind.startsWith('Cluster')))
      expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).toBe(config.namespace);
  });

  it("binds every role to the worker's ServiceAccount, and every binding to a role that exists", () => {
    const account = one<V1ServiceAccount>(objects, 'ServiceAccount');
    expect(podOf(objects).serviceAccountName).toBe(account.metadata.name);
    const bindings = [
      ...all<V1RoleBinding>(objects, 'RoleBinding'),
      ...all<V1ClusterRoleBinding>(objects, 'ClusterRoleBinding'),
    ];
    for (const binding of bindings) {
      expect(binding.subjects, binding.metadata.name).toEqual([
        { kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace },
      ]);
      const roleKind = binding.kind === 'RoleBinding' ? binding.roleRef.kind : 'ClusterRole';
      expect(binding.roleRef.kind).toBe(roleKind);
      expect(one(objects, roleKind, binding.roleRef.name).metadata.namespace).toBe(
        roleKind === 'Role' ? binding.metadata.namespace : undefined,
      );
    }
    const bound = bindings.map((b) => `${b.roleRef.kind}/${b.roleRef.name}`).sort();
    expect(bound).toEqual(
      [...all(objects, 'Role'), ...all(objects, 'ClusterRole')]
        .map((r) => `${r.kind}/${r.metadata.name}`)
        .sort(),
    );
  });

  it("grants exactly what the write gate reviews (docs/contract.md §8) plus what the operations after Start call: no wildcard, no other verb", () => {
    const described = (accesses: Parameters<typeof describeAccess>[0][]) => accesses.map(describeAccess).sort();
    expect(described(granted(objects))).toEqual(described(neededAccesses(config)));
    // The operations' accesses are exactly these (rbac.ts is the list both tests hold the manifests to).
    const ns = config.namespace;
    expect(described(operationAccesses(config))).toEqual(
      [
        `list trainjobs.trainer.kubeflow.org in ${ns}`,
        `watch trainjobs.trainer.kubeflow.org in ${ns}`,
        `list pods.core in ${ns}`,
        ...(mode === 'kueue'
          ? [
              `list workloads.${Kueue.group} in ${ns}`,
              `watch workloads.${Kueue.group} in ${ns}`,
              `patch workloads.${Kueue.group} in ${ns}`,
              `patch workloads/status.${Kueue.group} in ${ns}`,
              `get admissionchecks.${Kueue.group} ${config.kueue.admissionCheck} cluster-wide`,
              `patch admissionchecks/status.${Kueue.group} ${config.kueue.admissionCheck} cluster-wide`,
            ]
          : []),
      ].sort(),
    );
    expect(described(writeGateAccesses(config))).toHaveLength(9);
    for (const role of [...all<V1Role>(objects, 'Role'), ...all<V1ClusterRole>(objects, 'ClusterRole')]) {
      for (const rule of role.rules ?? []) {
        for (const field of [rule.apiGroups, rule.resources, rule.verbs, rule.resourceNames])
          expect(field ?? [], role.metadata.name).not.toContain('*');
        expect(rule.nonResourceURLs, role.metadata.name).toBeUndefined();
        // resourceNames only where a name is known: dispatch's AdmissionCheck, the configuration's.
        if (rule.resources?.some((r) => r.startsWith('admissionchecks')))
          expect(rule.resourceNames, role.metadata.name).toEqual([config.kueue.admissionCheck]);
        else expect(rule.resourceNames, role.metadata.name).toBeUndefined();
      }
    }
  });

  it('selects its own Pods: the Deployment and the metrics Service select the template labels', () => {
    const deployment = deploymentOf(objects);
    const labels = deployment.spec!.template.metadata!.labels!;
    expect(labels).toMatchObject(deployment.spec!.selector.matchLabels!);
    expect(labels).toMatchObject(one<V1Service>(objects, 'Service').spec!.selector!);
    expect(deployment.metadata.labels).toEqual(labels);
  });

  it('mounts the ConfigMap where --config reads it', () => {
    const worker = workerOf(objects);
    const volume = podOf(objects).volumes!.find((v) => v.configMap?.name === CONFIG_MAP)!;
    const mount = worker.volumeMounts!.find((m) => m.name === volume.name)!;
    expect(worker.args).toContain(`--config=${mount.mountPath}/${CONFIG_KEY}`);
    expect(one<V1ConfigMap>(objects, 'ConfigMap', CONFIG_MAP).data).toHaveProperty([CONFIG_KEY]);
  });

  it("runs `worker` with dispatch's metrics on 9465 (scrape annotations) and the Temporal SDK's on 9464, both in the Service", () => {
    const worker = workerOf(objects);
    expect(worker.args?.[0]).toBe('worker');
    expect(worker.args).toContain('--metrics=0.0.0.0:9464');
    expect(worker.args).toContain('--dispatch-metrics=0.0.0.0:9465');
    expect(worker.ports).toEqual([
      { name: 'metrics', containerPort: 9465, protocol: 'TCP' },
      { name: 'sdk-metrics', containerPort: 9464, protocol: 'TCP' },
      { name: 'health', containerPort: 8081, protocol: 'TCP' },
    ]);
    expect(one<V1Service>(objects, 'Service').spec!.ports).toEqual([
      { name: 'metrics', port: 9465, targetPort: 'metrics', protocol: 'TCP' },
      { name: 'sdk-metrics', port: 9464, targetPort: 'sdk-metrics', protocol: 'TCP' },
    ]);
    expect(deploymentOf(objects).spec!.template.metadata!.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9465',
      'prometheus.io/path': '/metrics',
    });
  });

  it('probes the health port: startup and liveness on /livez, readiness on /readyz, within the probe timeout', () => {
    const worker = workerOf(objects);
    expect(worker.args).toContain('--health=0.0.0.0:8081');
    expect(worker.ports).toContainEqual({ name: 'health', containerPort: 8081, protocol: 'TCP' });
    for (const probe of [worker.startupProbe, worker.livenessProbe]) expect(probe?.httpGet).toEqual({ path: '/livez', port: 'health' });
    expect(worker.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'health' });
    // /readyz waits for one call to Temporal, bounded by TEMPORAL_CHECK_TIMEOUT_MS: the probe must wait longer.
    expect(worker.readinessProbe!.timeoutSeconds! * 1000).toBeGreaterThan(TEMPORAL_CHECK_TIMEOUT_MS);
  });

  it("gives the Pod a termination grace that covers the worker's drain after SIGTERM, computed from the configuration's timeouts", () => {
    const grace = podOf(objects).terminationGracePeriodSeconds!;
    expect(grace).toBe(podTerminationGraceSeconds(config.timeouts));
    expect(grace * 1000).toBeGreaterThan(drainTimes(config.timeouts).forceMs);
  });

  it('runs as non-root on a read-only root filesystem, without privileges, within resource bounds', () => {
    const pod = podOf(objects);
    const worker = workerOf(objects);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(worker.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    // Node and the Temporal runtime may write temporary files: /tmp is the one writable place.
    expect(worker.volumeMounts!.find((m) => m.mountPath === '/tmp')).toBeDefined();
    expect(worker.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(worker.resources?.limits).toMatchObject({ memory: expect.any(String) });
  });

  it('takes the Temporal connection from TEMPORAL_* variables (after the heap limit), credentials from an optional Secret', () => {
    const worker = workerOf(objects);
    expect(worker.env?.map((e) => e.name)).toEqual(['NODE_OPTIONS', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE']);
    expect(worker.envFrom).toEqual([{ secretRef: { name: 'dispatch-kubeflow-temporal', optional: true } }]);
  });

  it("runs the image of this version: the package's, pinned", () => {
    expect(workerOf(objects).image).toBe(`dispatch-kubeflow:${version}`);
  });
});

describe('deploy/kubernetes/multikueue-worker-rbac.yaml (applied on each MultiKueue worker cluster)', () => {
  const objects = readManifests(join(KUEUE, '..', 'multikueue-worker-rbac.yaml'));
  const namespace = configOf(builds.kueue).namespace;

  it("grants, in the configuration's namespace, exactly what the worker calls there: the runtime copies (create, get, list, delete) and pods (list, watch), nothing cluster-scoped", () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(['Role', 'RoleBinding', 'Secret', 'ServiceAccount']);
    for (const object of objects) expect(object.metadata.namespace, object.kind).toBe(namespace);
    const described = (accesses: Parameters<typeof describeAccess>[0][]) => accesses.map(describeAccess).sort();
    expect(described(granted(objects))).toEqual(described(workerClusterAccesses(namespace)));
  });

  it("binds the Role to its ServiceAccount, whose long-lived token the kubeconfig carries", () => {
    const account = one<V1ServiceAccount>(objects, 'ServiceAccount');
    const binding = one<V1RoleBinding>(objects, 'RoleBinding');
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: one<V1Role>(objects, 'Role').metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account.metadata.name, namespace }]);
    const token = one<{ type: string; metadata: { annotations: Record<string, string> } }>(objects, 'Secret');
    expect(token.type).toBe('kubernetes.io/service-account-token');
    expect(token.metadata.annotations['kubernetes.io/service-account.name']).toBe(account.metadata.name);
  });
});
