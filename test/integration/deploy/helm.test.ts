// deploy/helm/dispatch-kubeflow through the real helm (built from the Go module proxy) and the real
// API server: `helm lint --strict`, then `helm template` with the default values, in Kueue mode and
// with every optional part on, each rendered set applied server-side in dry-run mode (strict field
// validation; the Prometheus Operator's ServiceMonitor and PrometheusRule CRDs, from its Go module,
// installed first). The chart's RBAC is deploy/kubernetes's, rule for rule, and grants exactly what
// the worker's calls need (test/unit/deploy/rbac.ts); its configuration passes the config schema.
// The RBAC itself is proven on the real API server by rbac.test.ts, on the kustomize objects.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  V1ClusterRoleBinding,
  V1ConfigMap,
  V1Deployment,
  V1PodDisruptionBudget,
  V1RoleBinding,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { monitoringCrdDir } from '../../../dev/harness/crd-sources.js';
import { installCrds } from '../../../dev/harness/crds.js';
import { all, configOf, KUEUE, kustomize, one, PLAIN, type Manifest } from '../../unit/deploy/manifests.js';
import { describeAccess, granted, neededAccesses } from '../../unit/deploy/rbac.js';
import { freshNamespace, kubeAccess, uniqueName, type TestNamespace } from '../support/kube.js';
import {
  applyDryRun,
  createAll,
  deleteClusterScoped,
  expectAccessesAsSelf,
  serviceAccountIdentity,
  untilAuthorized,
  type KubeBody,
} from './apply.js';
import { CHART_DIR, chartCopy, lintChart, renderChart } from './helm.js';
import { podTerminationGraceSeconds } from '../../../src/core/drain.js';

const MONITORING_CRDS = ['servicemonitors.monitoring.coreos.com', 'prometheusrules.monitoring.coreos.com'];
const RULES_FILE = 'files/prometheus-rules.yaml';
const DASHBOARD_FILE = 'files/grafana-dashboard.json';

/** Stand-ins for the dashboard and the alerts while the chart does not carry them yet. */
const FIXTURES: Record<string, string> = {
  [RULES_FILE]: [
    'groups:',
    '  - name: dispatch-kubeflow-test',
    '    rules:',
    '      - alert: DispatchWorkerDown',
    '        expr: up{job="dispatch-kubeflow-metrics"} == 0',
    '        for: 5m',
    '        labels: { severity: critical }',
    "        annotations: { summary: '{{ $labels.pod }} has not answered a scrape for 5 minutes' }",
    '',
  ].join('\n'),
  [DASHBOARD_FILE]: `${JSON.stringify({ title: 'dispatch-kubeflow', uid: 'dispatch-kubeflow', panels: [] }, null, 2)}\n`,
};

/** MultiKueue's worker clusters: one Secret each, one with its own key, one name a subdomain. */
const WORKER_CLUSTERS = [
  { name: 'worker-east', kubeconfigSecret: { name: 'worker-east-kubeconfig' } },
  { name: 'worker.west', kubeconfigSecret: { name: 'worker-clusters', key: 'west' } },
];

/** Every optional part on, in Kueue mode, with TrainJobs in a namespace apart from the worker's. */
const everything = (jobsNamespace: string) => ({
  mode: 'kueue',
  namespace: jobsNamespace,
  replicas: 2,
  temporal: {
    address: 'my-ns.a1b2c.tmprl.cloud:7233',
    namespace: 'my-ns.a1b2c',
    taskQueue: 'dispatch-kubeflow-gpu',
    tls: {
      enabled: true,
      secretName: 'temporal-mtls',
      serverCAKey: 'ca.crt',
      serverName: 'my-ns.a1b2c.tmprl.cloud',
    },
    apiKey: { secretName: 'temporal-api-key' },
  },
  codec: { secretName: 'dispatch-codec' },
  podDisruptionBudget: { enabled: true },
  serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
  prometheusRule: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
  dashboard: { enabled: true },
  extraEnv: [{ name: 'DISPATCH_TRACING', value: 'otlp' }],
  kueue: { multiKueue: { clusters: WORKER_CLUSTERS } },
});

/** The chart with the dashboard and the alerts: its own files where it has them, stand-ins where not. */
function chartWithFiles() {
  return chartCopy(
    Object.fromEntries(Object.entries(FIXTURES).filter(([path]) => !existsSync(join(CHART_DIR, path)))),
  );
}

const bodies = (objects: Manifest[]): KubeBody[] => objects.map(({ source: _source, ...object }) => object);
const kinds = (objects: Manifest[]) => objects.map((o) => o.kind).sort();
const RBAC_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];
const WORKER_KINDS = [
  'ConfigMap',
  'Deployment',
  'Service',
  'ServiceAccount',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
];
const KUEUE_KINDS = ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];
/** MultiKueue's reader of the manager's MultiKueueClusters. */
/** The RBAC objects without their labels: what they grant, where, and to whom. */
function rbacOf(objects: Manifest[]) {
  return objects
    .filter((o) => RBAC_KINDS.includes(o.kind))
    .map(({ source: _source, metadata, ...object }) => ({
      ...object,
      metadata: { name: metadata.name, namespace: metadata.namespace },
    }))
    .sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));
}

const lintFailure = (run: { code: number; stdout: string; stderr: string }) =>
  run.code === 0 ? '' : `${run.stdout}${run.stderr}`;

describe('deploy/helm/dispatch-kubeflow', () => {
  let release: TestNamespace;
  let jobs: TestNamespace;
  let chart: ReturnType<typeof chartWithFiles>;
  const rendered: Record<'default' | 'kueue' | 'everything', Manifest[]> = {
    default: [],
    kueue: [],
    everything: [],
  };

  beforeAll(async () => {
    [release, jobs] = await Promise.all([freshNamespace('helm'), freshNamespace('helm-jobs')]);
    chart = chartWithFiles();
    const namespace = release.name;
    [rendered.default, rendered.kueue, rendered.everything] = await Promise.all([
      renderChart({ namespace }),
      renderChart({ namespace, values: { mode: 'kueue' } }),
      renderChart({ namespace, values: everything(jobs.name), chart: chart.dir }),
      installCrds(kubeAccess('admin'), [monitoringCrdDir()], { only: MONITORING_CRDS }),
    ]);
  });
  afterAll(async () => {
    chart?.dispose();
    await Promise.all([release?.dispose(), jobs?.dispose()]);
  });

  it('passes `helm lint --strict` with the default values, in Kueue mode and with every optional part on', async () => {
    const runs = await Promise.all([
      lintChart(),
      lintChart({ mode: 'kueue' }),
      lintChart(everything('ml-jobs'), chart.dir),
    ]);
    expect(runs.map(lintFailure)).toEqual(['', '', '']);
  });

  it("fails `helm lint` on values its schema refuses: a mode that is neither plain nor kueue, a value it does not have, the configuration's namespace set twice", async () => {
    const runs = await Promise.all([
      lintChart({ mode: 'queued' }),
      lintChart({ replica: 2 }),
      lintChart({ config: { namespace: 'ml-jobs' } }),
    ]);
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1]);
    expect(runs[0]!.stdout).toMatch(/mode.*(plain|kueue)/s);
    expect(runs[1]!.stdout).toContain('replica');
    expect(runs[2]!.stdout).toContain('namespace');
  });

  it('fails `helm lint` on worker clusters it cannot mount or configure: outside Kueue mode, without a Secret, a kubeconfig path instead, a name that is not a DNS subdomain, none', async () => {
    const withClusters = (clusters: unknown[], mode = 'kueue') => ({ mode, kueue: { multiKueue: { clusters } } });
    const runs = await Promise.all([
      lintChart(withClusters(WORKER_CLUSTERS, 'plain')),
      lintChart(withClusters([{ name: 'worker-east' }])),
      lintChart(withClusters([{ name: 'worker-east', kubeconfig: '/etc/worker-east.kubeconfig' }])),
      lintChart(withClusters([{ name: 'Worker_East', kubeconfigSecret: { name: 's' } }])),
      lintChart(withClusters([])),
    ]);
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1, 1, 1]);
    const said = runs.map((r) => `${r.stdout}${r.stderr}`);
    expect(said[0]).toContain('/kueue/multiKueue');
    expect(said[1]).toContain('kubeconfigSecret');
    expect(said[2]).toContain('kubeconfig');
    expect(said[3]).toMatch(/name/);
    expect(said[4]).toMatch(/clusters/);
  });

  it('renders the worker and its RBAC; Kueue mode adds its Role and ClusterRole; every optional part adds a PodDisruptionBudget, a ServiceMonitor, a PrometheusRule and the dashboard', () => {
    expect(kinds(rendered.default)).toEqual([...WORKER_KINDS].sort());
    expect(kinds(rendered.kueue)).toEqual([...WORKER_KINDS, ...KUEUE_KINDS].sort());
    expect(kinds(rendered.everything)).toEqual(
      [
        ...WORKER_KINDS,
        ...KUEUE_KINDS,
        'PodDisruptionBudget',
        'ServiceMonitor',
        'PrometheusRule',
        'ConfigMap',
      ].sort(),
    );
  });

  it("mounts each worker cluster's kubeconfig read-only from its Secret at the path the configuration gives it, and grants get, list and watch on MultiKueueClusters only with them", () => {
    const config = configOf(rendered.everything);
    const pod = one<V1Deployment>(rendered.everything, 'Deployment').spec!.template.spec!;
    // Every file the pod sees, by its path: each projected Secret's item under its volume's mount.
    const files = new Map<string, { secret: string; key: string; readOnly: boolean | undefined }>();
    for (const mount of pod.containers[0]!.volumeMounts!) {
      const volume = pod.volumes!.find((v) => v.name === mount.name)!;
      for (const source of volume.projected?.sources ?? [])
        for (const item of source.secret?.items ?? [])
          files.set(`${mount.mountPath}/${item.path}`, { secret: source.secret!.name!, key: item.key, readOnly: mount.readOnly });
    }
    expect(config.kueue.multiKueue!.clusters.map((c) => [c.name, files.get(c.kubeconfig)])).toEqual(
      WORKER_CLUSTERS.map((c) => [c.name, { secret: c.kubeconfigSecret.name, key: c.kubeconfigSecret.key ?? 'kubeconfig', readOnly: true }]),
    );
    expect(files.size).toBe(WORKER_CLUSTERS.length);
    const rule = (objects: Manifest[]) =>
      all<{ metadata: { name: string }; rules?: { resources?: string[]; verbs: string[] }[] }>(objects, 'ClusterRole')
        .flatMap((r) => r.rules ?? [])
        .filter((r) => r.resources?.includes('multikueueclusters'));
    // Watch reads each configured worker cluster's MultiKueueCluster by name, and nothing more.
    expect(rule(rendered.everything)).toEqual([
      { apiGroups: ['kueue.x-k8s.io'], resources: ['multikueueclusters'], resourceNames: WORKER_CLUSTERS.map((c) => c.name), verbs: ['get'] },
    ]);
    expect([...rule(rendered.default), ...rule(rendered.kueue)]).toEqual([]);
    for (const set of [rendered.default, rendered.kueue]) {
      expect(configOf(set).kueue.multiKueue).toBeUndefined();
      expect(one<V1Deployment>(set, 'Deployment').spec!.template.spec!.volumes!.some((v) => v.projected)).toBe(false);
    }
  });

  describe.each([
    ['the default values', 'default'],
    ['mode: kueue', 'kueue'],
    ['every optional part on', 'everything'],
  ] as const)('rendered with %s', (_label, set) => {
    it('is accepted by the real API server: a server-side apply, dry run, strictly validated', async () => {
      await applyDryRun(bodies(rendered[set]), 'helm-test');
    });

    it("carries a configuration that passes the config schema, with the values' mode, namespace and task queue", () => {
      const config = configOf(rendered[set]);
      expect(config).toMatchObject({
        mode: set === 'default' ? 'plain' : 'kueue',
        namespace: set === 'everything' ? jobs.name : release.name,
        // The default is one queue per configuration namespace (several releases, docs/deploy.md).
        temporal: { taskQueue: set === 'everything' ? 'dispatch-kubeflow-gpu' : `dispatch-kubeflow-${release.name}` },
        kubeconfig: '',
      });
    });

    it("grants exactly what the worker's calls need, in the configuration's namespace, to the worker's ServiceAccount", () => {
      const objects = rendered[set];
      const config = configOf(objects);
      const described = (accesses: Parameters<typeof describeAccess>[0][]) =>
        accesses.map(describeAccess).sort();
      expect(described(granted(objects))).toEqual(described(neededAccesses(config)));
      const account = one<V1ServiceAccount>(objects, 'ServiceAccount');
      expect(account.metadata.namespace).toBe(release.name);
      expect(one<V1Deployment>(objects, 'Deployment').spec!.template.spec!.serviceAccountName).toBe(
        account.metadata.name,
      );
      for (const binding of [
        ...all<V1RoleBinding>(objects, 'RoleBinding'),
        ...all<V1ClusterRoleBinding>(objects, 'ClusterRoleBinding'),
      ]) {
        expect(binding.subjects, binding.metadata.name).toEqual([
          { kind: 'ServiceAccount', name: account.metadata.name, namespace: release.name },
        ]);
        expect(one(objects, binding.roleRef.kind, binding.roleRef.name).metadata.namespace).toBe(
          binding.metadata.namespace,
        );
      }
    });
  });

  it("with kueue.multiKueue, grants get on each worker cluster's MultiKueueCluster by name, and that alone more", async () => {
    const clusters = ['worker-1', 'worker-2'].map((name) => ({ name, kubeconfigSecret: { name: `${name}-kubeconfig` } }));
    const objects = await renderChart({ namespace: release.name, values: { mode: 'kueue', kueue: { multiKueue: { clusters } } } });
    const config = configOf(objects);
    expect(config.kueue.multiKueue).toEqual({ clusters: clusters.map(({ name }) => ({ name, kubeconfig: `/etc/dispatch-kubeflow/clusters/${name}.kubeconfig` })) });
    const described = (accesses: Parameters<typeof describeAccess>[0][]) => accesses.map(describeAccess).sort();
    expect(described(granted(objects))).toEqual(described(neededAccesses(config)));
    const more = described(granted(objects)).filter((a) => !described(granted(rendered.kueue)).includes(a));
    expect(more).toEqual(['get multikueueclusters.kueue.x-k8s.io worker-1 cluster-wide', 'get multikueueclusters.kueue.x-k8s.io worker-2 cluster-wide']);
  });

  it("lets the ServiceAccount itself do every access the worker's calls need, and none of their neighbours, with the TrainJobs in a namespace apart from the worker's (the RBAC created for real)", async () => {
    // A release name of its own: its cluster-scoped objects are stored, for the length of this test.
    const objects = await renderChart({
      namespace: release.name,
      release: uniqueName('dk'),
      values: everything(jobs.name),
      chart: chart.dir,
    });
    const rbac = bodies(objects).filter((o) => RBAC_KINDS.includes(o.kind));
    await createAll(rbac);
    try {
      const account = one<V1ServiceAccount>(objects, 'ServiceAccount').metadata.name;
      const identity = await serviceAccountIdentity(release.name, account);
      // The same values as the everything set: the same configuration (configOf reads the ConfigMap by its default name).
      const config = configOf(rendered.everything);
      // RBAC reaches the authorizer through its informers, a moment after it is stored.
      for (const access of neededAccesses(config)) await untilAuthorized(identity, access, true);
      // The worker's own namespace is "another namespace" here: nothing is granted there.
      await expectAccessesAsSelf(identity, config, release.name);
    } finally {
      await deleteClusterScoped(rbac);
    }
  });

  it.each([
    ['plain', PLAIN, {}],
    ['kueue', KUEUE, { mode: 'kueue' }],
  ])(
    'has the RBAC of deploy/kubernetes in %s mode, object for object and rule for rule, and its configuration, for a release named dispatch-kubeflow in ml-jobs',
    async (_mode, dir, values) => {
      const objects = await renderChart({ namespace: 'ml-jobs', values });
      const kustomized = kustomize(dir);
      expect(rbacOf(objects)).toEqual(rbacOf(kustomized));
      expect(configOf(objects)).toEqual(configOf(kustomized));
      // The worker runs locked down as deploy/kubernetes has it.
      const pod = (o: Manifest[]) => one<V1Deployment>(o, 'Deployment').spec!.template.spec!;
      expect(pod(objects).securityContext).toEqual(pod(kustomized).securityContext);
      expect(pod(objects).containers[0]!.securityContext).toEqual(
        pod(kustomized).containers[0]!.securityContext,
      );
      expect(pod(objects).containers[0]!.resources).toEqual(pod(kustomized).containers[0]!.resources);
      expect(pod(objects).terminationGracePeriodSeconds).toBe(pod(kustomized).terminationGracePeriodSeconds);
    },
  );

  it("computes the Pod's termination grace from config.timeouts as the worker computes its drain (src/core/drain.ts), unless the value sets it", async () => {
    const cases: { timeouts: { workload?: string; call?: string; drain?: string }; set?: number }[] = [
      { timeouts: {} },
      { timeouts: { workload: '5m', call: '1m30s' } },
      { timeouts: { workload: '90s', call: '2500ms' } },
      { timeouts: { drain: '1.5h' } },
      { timeouts: { drain: '500ms' } },
      { timeouts: {}, set: 45 },
    ];
    const graces = await Promise.all(
      cases.map(async ({ timeouts, set }) => {
        const objects = await renderChart({
          namespace: 'ml-jobs',
          values: { config: { timeouts }, ...(set !== undefined ? { terminationGracePeriodSeconds: set } : {}) },
        });
        return one<V1Deployment>(objects, 'Deployment').spec!.template.spec!.terminationGracePeriodSeconds;
      }),
    );
    const withDefaults = (t: (typeof cases)[number]['timeouts']) => ({ workload: '60s', call: '30s', ...t });
    expect(graces).toEqual(cases.map(({ timeouts, set }) => set ?? podTerminationGraceSeconds(withDefaults(timeouts))));
    expect(graces.slice(0, 3)).toEqual([150, 510, 125]);
  });

  it('runs the worker with its metrics and health addresses, probes on /readyz and /livez, and the Temporal connection and codec from the values and Secrets', () => {
    const deployment = one<V1Deployment>(rendered.everything, 'Deployment');
    expect(deployment.spec!.replicas).toBe(2);
    const pod = deployment.spec!.template.spec!;
    const worker = pod.containers[0]!;
    expect(worker.args).toEqual([
      'worker',
      '--config=/etc/dispatch-kubeflow/config.yaml',
      '--metrics=0.0.0.0:9464',
      '--dispatch-metrics=0.0.0.0:9465',
      '--health=0.0.0.0:8081',
    ]);
    expect(worker.ports!.map((p) => `${p.name}=${p.containerPort}`)).toEqual([
      'metrics=9465',
      'sdk-metrics=9464',
      'health=8081',
    ]);
    expect([worker.startupProbe, worker.livenessProbe, worker.readinessProbe].map((p) => p?.httpGet)).toEqual(
      [
        { path: '/livez', port: 'health' },
        { path: '/livez', port: 'health' },
        { path: '/readyz', port: 'health' },
      ],
    );
    const tlsDir = '/etc/dispatch-kubeflow/temporal-tls';
    expect(Object.fromEntries(worker.env!.map((e) => [e.name, e.value ?? e.valueFrom]))).toEqual({
      NODE_OPTIONS: '--max-old-space-size=192 --max-semi-space-size=4',
      TEMPORAL_ADDRESS: 'my-ns.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'my-ns.a1b2c',
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_SERVER_NAME: 'my-ns.a1b2c.tmprl.cloud',
      TEMPORAL_TLS_CLIENT_CERT_PATH: `${tlsDir}/tls.crt`,
      TEMPORAL_TLS_CLIENT_KEY_PATH: `${tlsDir}/tls.key`,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: `${tlsDir}/ca.crt`,
      TEMPORAL_API_KEY: { secretKeyRef: { name: 'temporal-api-key', key: 'api-key' } },
      DISPATCH_CODEC_KEYS: { secretKeyRef: { name: 'dispatch-codec', key: 'keys' } },
      DISPATCH_CODEC_KEY_ID: { secretKeyRef: { name: 'dispatch-codec', key: 'key-id', optional: true } },
      DISPATCH_TRACING: 'otlp',
    });
    const tlsVolume = pod.volumes!.find((v) => v.secret?.secretName === 'temporal-mtls')!;
    expect(worker.volumeMounts).toContainEqual({ name: tlsVolume.name, mountPath: tlsDir, readOnly: true });
    expect(one<V1PodDisruptionBudget>(rendered.everything, 'PodDisruptionBudget').spec).toEqual({
      maxUnavailable: 1,
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
      selector: { matchLabels: deployment.spec!.selector.matchLabels },
    });
  });

  it("scrapes both metrics ports with the release's name as the label `release`, which every alert and the dashboard key on", () => {
    const monitor = one<{ spec: { selector: unknown; endpoints: { port: string; relabelings?: unknown[] }[] } }>(rendered.everything, 'ServiceMonitor');
    const service = one<{ metadata: { labels: Record<string, string> } }>(rendered.everything, 'Service');
    expect(monitor.spec.endpoints.map((e) => e.port)).toEqual(['metrics', 'sdk-metrics']);
    for (const endpoint of monitor.spec.endpoints)
      expect(endpoint.relabelings).toEqual([{ sourceLabels: ['__meta_kubernetes_service_label_app_kubernetes_io_instance'], targetLabel: 'release' }]);
    // The label it reads is the metrics Service's: the release's name (renderChart's release).
    expect(service.metadata.labels['app.kubernetes.io/instance']).toBe('dispatch-kubeflow');
  });

  it('wraps files/prometheus-rules.yaml as the PrometheusRule spec and files/grafana-dashboard.json in a ConfigMap labelled grafana_dashboard, each verbatim', () => {
    const rule = one<{ spec: unknown }>(rendered.everything, 'PrometheusRule');
    const dashboard = all<V1ConfigMap>(rendered.everything, 'ConfigMap').find(
      (c) => c.metadata.labels?.grafana_dashboard === '1',
    )!;
    const source = (path: string) => {
      const file = join(CHART_DIR, path);
      return existsSync(file) ? readFileSync(file, 'utf8') : FIXTURES[path]!;
    };
    expect(rule.spec).toEqual(parse(source(RULES_FILE)));
    expect(rule.spec).toMatchObject({ groups: expect.any(Array) });
    // A block scalar with `|-`: the file as it is, less its last line break.
    expect(dashboard.data).toEqual({ 'dispatch-kubeflow.json': source(DASHBOARD_FILE).trimEnd() });
  });

  it('renders no PrometheusRule and no dashboard while the chart has neither file, even when enabled', async () => {
    const bare = chartCopy({ [RULES_FILE]: null, [DASHBOARD_FILE]: null });
    try {
      const objects = await renderChart({
        namespace: release.name,
        values: everything(jobs.name),
        chart: bare.dir,
      });
      expect(kinds(objects)).toEqual(
        [...WORKER_KINDS, ...KUEUE_KINDS, 'PodDisruptionBudget', 'ServiceMonitor'].sort(),
      );
    } finally {
      bare.dispose();
    }
  });
});
