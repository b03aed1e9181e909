// The chart's pod settings and optional parts through the real helm and the real API server (as
// helm.test.ts does for the rest): OpenShift's security context, the security contexts and pod
// settings as values, HTTPS for the worker's endpoints, the NetworkPolicies and the codec server,
// each turned on, `helm lint --strict` passing and the rendered objects accepted by a strict
// server-side dry run; the values that cannot work refused by `helm lint` (values.schema.json),
// naming the value.
import { join } from 'node:path';
import type { V1Deployment, V1NetworkPolicy, V1Service } from '@kubernetes/client-node';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitoringCrdDir } from '../../../dev/harness/crd-sources.js';
import { installCrds } from '../../../dev/harness/crds.js';
import { addCodecServerOptions } from '../../../src/codec/command-options.js';
import { CODEC_KEY_ID_ENV, CODEC_KEYS_ENV } from '../../../src/codec/index.js';
import { all, KUBERNETES_DIR, kustomize, one, type Manifest } from '../../unit/deploy/manifests.js';
import { freshNamespace, kubeAccess, type TestNamespace } from '../support/kube.js';
import { applyDryRun, type KubeBody } from './apply.js';
import { lintChart, renderChart } from './helm.js';

const MONITORING_CRDS = ['servicemonitors.monitoring.coreos.com', 'prometheusrules.monitoring.coreos.com'];
const monitoringPeer = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
const uiPeer = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } };
const apiServer = { ipBlock: { cidr: '10.0.0.1/32' } };

/** The codec server, JWTs and static tokens both, with the values it needs. */
const codecServer = {
  enabled: true,
  uiOrigin: 'https://temporal.example.com',
  jwt: { issuer: 'https://login.example.com/realms/ml', audience: 'temporal-ui' },
  tokens: { secretName: 'codec-tokens' },
  tls: { secretName: 'codec-tls' },
  networkPolicyFrom: [uiPeer],
};

/** Every new option on. */
const options = {
  openshift: true,
  temporal: { address: 'temporal-frontend.temporal.svc:7234', namespace: 'default', taskQueue: 'dispatch-kubeflow' },
  codec: { secretName: 'dispatch-codec' },
  commonLabels: { team: 'ml-platform' },
  commonAnnotations: { 'example.com/owner': 'ml-platform' },
  podSecurityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
  securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] }, runAsNonRoot: true },
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' }],
  affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'pool', operator: 'In', values: ['system'] }] } }] } },
  resources: { requests: { cpu: '200m', memory: '512Mi' }, limits: { memory: '1Gi' } },
  priorityClassName: 'system-cluster-critical',
  endpointsTls: { enabled: true, secretName: 'dispatch-endpoints-tls' },
  serviceMonitor: { enabled: true, tlsConfig: { serverName: 'dispatch-kubeflow-metrics' } },
  networkPolicy: {
    enabled: true,
    kubernetesApi: { to: [apiServer] },
    metricsFrom: [monitoringPeer],
    healthFrom: [{ ipBlock: { cidr: '10.0.0.0/16' } }],
    extraEgress: [{ ports: [{ port: 4318, protocol: 'TCP' }] }],
  },
  codecServer,
};

const bodies = (objects: Manifest[]): KubeBody[] => objects.map(({ source: _source, ...object }) => object);
const lintFailure = (run: { code: number; stdout: string; stderr: string }) => (run.code === 0 ? '' : `${run.stdout}${run.stderr}`);
const byComponent = (objects: Manifest[], component: string) =>
  all<V1Deployment>(objects, 'Deployment').find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === component)!;

describe('deploy/helm/dispatch-kubeflow: pod settings and optional parts', () => {
  let release: TestNamespace;
  let rendered: Manifest[];
  let defaults: Manifest[];

  beforeAll(async () => {
    release = await freshNamespace('helm-options');
    [rendered, defaults] = await Promise.all([
      renderChart({ namespace: release.name, values: options }),
      renderChart({ namespace: release.name }),
      installCrds(kubeAccess('admin'), [monitoringCrdDir()], { only: MONITORING_CRDS }),
    ]);
  });
  afterAll(async () => {
    await release?.dispose();
  });

  it('passes `helm lint --strict` with every option on, and is accepted by the real API server (server-side apply, dry run, strict)', async () => {
    expect(lintFailure(await lintChart(options))).toBe('');
    expect(rendered.map((o) => o.kind).filter((k) => ['Deployment', 'Service', 'NetworkPolicy'].includes(k)).sort()).toEqual(
      ['Deployment', 'Deployment', 'NetworkPolicy', 'NetworkPolicy', 'Service', 'Service'],
    );
    await applyDryRun(bodies(rendered), 'helm-options-test');
  });

  it('renders no NetworkPolicy and no codec server by default, and the security contexts of deploy/kubernetes', () => {
    expect(defaults.filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
    expect(all<V1Deployment>(defaults, 'Deployment')).toHaveLength(1);
    const pod = one<V1Deployment>(defaults, 'Deployment').spec!.template.spec!;
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers[0]!.args!.some((a) => a.startsWith('--tls-'))).toBe(false);
  });

  it('leaves the user, group and fsGroup to OpenShift with openshift on; the rest of the security contexts and the pod settings from the values, on both Deployments', () => {
    for (const component of ['worker', 'codec-server']) {
      const pod = byComponent(rendered, component).spec!.template.spec!;
      expect(pod.securityContext, component).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.containers[0]!.securityContext, component).toEqual(options.securityContext);
      expect(pod.nodeSelector, component).toEqual(options.nodeSelector);
      expect(pod.tolerations, component).toEqual(options.tolerations);
      expect(pod.priorityClassName, component).toBe(options.priorityClassName);
    }
    const worker = byComponent(rendered, 'worker').spec!.template.spec!;
    expect(worker.affinity).toEqual(options.affinity);
    expect(worker.containers[0]!.resources).toEqual(options.resources);
  });

  it('puts commonLabels and commonAnnotations on every object', () => {
    expect(rendered.length).toBeGreaterThan(10);
    for (const object of rendered) {
      expect(object.metadata.labels, `${object.kind}/${object.metadata.name}`).toMatchObject(options.commonLabels);
      expect(object.metadata.annotations, `${object.kind}/${object.metadata.name}`).toMatchObject(options.commonAnnotations);
    }
  });

  it("serves the worker's endpoints over HTTPS from the mounted Secret: the flags, the probes, the scrape annotations and the ServiceMonitor", () => {
    const deployment = byComponent(rendered, 'worker');
    const pod = deployment.spec!.template.spec!;
    const worker = pod.containers[0]!;
    const volume = pod.volumes!.find((v) => v.secret?.secretName === 'dispatch-endpoints-tls')!;
    const mount = worker.volumeMounts!.find((m) => m.name === volume.name)!;
    expect(mount.readOnly).toBe(true);
    expect(worker.args).toEqual(expect.arrayContaining([`--tls-cert=${mount.mountPath}/tls.crt`, `--tls-key=${mount.mountPath}/tls.key`]));
    for (const probe of [worker.startupProbe, worker.livenessProbe, worker.readinessProbe])
      expect(probe?.httpGet).toMatchObject({ port: 'health', scheme: 'HTTPS' });
    expect(deployment.spec!.template.metadata!.annotations).toMatchObject({ 'prometheus.io/scheme': 'https' });
    const monitor = one<{ spec: { endpoints: unknown[] } }>(rendered, 'ServiceMonitor');
    expect(monitor.spec.endpoints).toHaveLength(2);
    for (const endpoint of monitor.spec.endpoints)
      expect(endpoint).toMatchObject({ scheme: 'https', tlsConfig: options.serviceMonitor.tlsConfig });
  });

  it("limits the worker to DNS, Temporal's port, the Kubernetes API and the extra egress, and lets in only the given peers, each to its ports", () => {
    const policy = all<V1NetworkPolicy>(rendered, 'NetworkPolicy').find((p) => p.metadata.name === byComponent(rendered, 'worker').metadata.name)!;
    expect(policy.spec!.podSelector!.matchLabels).toEqual(byComponent(rendered, 'worker').spec!.selector.matchLabels);
    expect(policy.spec!.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec!.ingress).toEqual([
      { from: [monitoringPeer], ports: [{ port: 'metrics', protocol: 'TCP' }, { port: 'sdk-metrics', protocol: 'TCP' }] },
      { from: options.networkPolicy.healthFrom, ports: [{ port: 'health', protocol: 'TCP' }] },
    ]);
    const egress = policy.spec!.egress!;
    expect(egress.map((rule) => rule.ports!.map((p) => `${p.port}/${p.protocol}`))).toEqual([['53/UDP', '53/TCP'], ['7234/TCP'], ['443/TCP', '6443/TCP'], ['4318/TCP']]);
    expect(egress[2]!.to).toEqual([apiServer]);
    // The port names are the worker container's.
    const ports = byComponent(rendered, 'worker').spec!.template.spec!.containers[0]!.ports!.map((p) => p.name);
    for (const rule of policy.spec!.ingress!) for (const port of rule.ports!) expect(ports).toContain(port.port);
  });

  it("runs the codec server with the worker's keys, its caller checks and its TLS from Secrets, only variables `codec-server` reads, no API token, its own selector, Service and NetworkPolicy", () => {
    const deployment = byComponent(rendered, 'codec-server');
    const pod = deployment.spec!.template.spec!;
    const container = pod.containers[0]!;
    const variables = new Set(addCodecServerOptions(new Command()).options.map((o) => o.envVar!));
    // The keys are read by the codec (src/codec/index.ts), the rest by the command's options.
    for (const env of container.env!)
      if (env.name !== CODEC_KEYS_ENV && env.name !== CODEC_KEY_ID_ENV) expect(variables, env.name).toContain(env.name);
    const env = Object.fromEntries(container.env!.map((e) => [e.name, e.value ?? e.valueFrom]));
    expect(env).toMatchObject({
      DISPATCH_CODEC_KEYS: { secretKeyRef: { name: 'dispatch-codec', key: 'keys' } },
      DISPATCH_CODEC_UI_ORIGIN: codecServer.uiOrigin,
      DISPATCH_CODEC_JWT_ISSUER: codecServer.jwt.issuer,
      DISPATCH_CODEC_JWT_AUDIENCE: codecServer.jwt.audience,
    });
    expect(env.DISPATCH_CODEC_INSECURE_NO_AUTH).toBeUndefined();
    const mounted = (secretName: string) => {
      const volume = pod.volumes!.find((v) => v.secret?.secretName === secretName)!;
      return container.volumeMounts!.find((m) => m.name === volume.name)!.mountPath;
    };
    expect(env.DISPATCH_CODEC_TLS_CERT).toBe(`${mounted('codec-tls')}/tls.crt`);
    expect(env.DISPATCH_CODEC_TLS_KEY).toBe(`${mounted('codec-tls')}/tls.key`);
    expect(env.DISPATCH_CODEC_TOKEN_FILE).toBe(`${mounted('codec-tokens')}/tokens`);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.args).toEqual(['codec-server', '--listen=0.0.0.0:8888']);
    for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe])
      expect(probe?.httpGet).toEqual({ path: '/healthz', port: 'codec', scheme: 'HTTPS' });

    // Neither the worker's selectors nor the codec server's select the other's Pods.
    const worker = byComponent(rendered, 'worker');
    const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    const services = all<V1Service>(rendered, 'Service');
    const codecService = services.find((s) => s.metadata.name === deployment.metadata.name)!;
    expect(codecService.spec!.ports).toEqual([{ name: 'codec', port: 8888, targetPort: 'codec', protocol: 'TCP' }]);
    expect(selects(codecService.spec!.selector!, deployment.spec!.template.metadata!.labels!)).toBe(true);
    expect(selects(codecService.spec!.selector!, worker.spec!.template.metadata!.labels!)).toBe(false);
    for (const service of services.filter((s) => s !== codecService))
      expect(selects(service.spec!.selector!, deployment.spec!.template.metadata!.labels!), service.metadata.name).toBe(false);
    expect(selects(deployment.spec!.selector.matchLabels!, worker.spec!.template.metadata!.labels!)).toBe(false);

    const policy = all<V1NetworkPolicy>(rendered, 'NetworkPolicy').find((p) => p.metadata.name === deployment.metadata.name)!;
    expect(policy.spec!.podSelector!.matchLabels).toEqual(deployment.spec!.selector.matchLabels);
    expect(policy.spec!.ingress).toEqual([{ from: [uiPeer], ports: [{ port: 'codec', protocol: 'TCP' }] }]);
    expect(policy.spec!.egress!.map((rule) => rule.ports!.map((p) => p.port))).toEqual([[53, 53], [443]]);
  });

  it("runs the codec server as deploy/kubernetes/codec-server does, for the same settings: arguments, variables, probes, resources, security contexts, mounts", async () => {
    const kustomized = one<V1Deployment>(kustomize(join(KUBERNETES_DIR, 'codec-server')), 'Deployment').spec!.template.spec!;
    const env = new Map(kustomized.containers[0]!.env!.map((e) => [e.name, e.value!]));
    const objects = await renderChart({
      namespace: 'ml-jobs',
      values: {
        codec: { secretName: 'dispatch-kubeflow-codec', keysKey: 'DISPATCH_CODEC_KEYS', keyIdKey: 'DISPATCH_CODEC_KEY_ID' },
        codecServer: {
          enabled: true,
          uiOrigin: env.get('DISPATCH_CODEC_UI_ORIGIN'),
          jwt: { issuer: env.get('DISPATCH_CODEC_JWT_ISSUER'), audience: env.get('DISPATCH_CODEC_JWT_AUDIENCE') },
          tls: { secretName: 'dispatch-kubeflow-codec-tls' },
        },
      },
    });
    const charted = byComponent(objects, 'codec-server').spec!.template.spec!;
    const [mine, theirs] = [charted.containers[0]!, kustomized.containers[0]!];
    for (const field of ['image', 'imagePullPolicy', 'args', 'ports', 'startupProbe', 'readinessProbe', 'livenessProbe', 'resources', 'securityContext', 'volumeMounts'] as const)
      expect(mine[field], field).toEqual(theirs[field]);
    expect(charted.securityContext).toEqual(kustomized.securityContext);
    expect(charted.automountServiceAccountToken).toBe(kustomized.automountServiceAccountToken);
    expect(charted.volumes).toEqual(kustomized.volumes);
    // The same variables; the keys from the same Secret, by key rather than as a whole.
    const named = (c: typeof mine) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
    expect(named(mine)).toMatchObject(named(theirs));
    expect(theirs.envFrom).toEqual([{ secretRef: { name: 'dispatch-kubeflow-codec' } }]);
    expect(mine.env!.filter((e) => e.valueFrom).map((e) => [e.name, e.valueFrom!.secretKeyRef!.name])).toEqual([
      [CODEC_KEYS_ENV, 'dispatch-kubeflow-codec'],
      [CODEC_KEY_ID_ENV, 'dispatch-kubeflow-codec'],
    ]);
  });

  it.each([
    ['the codec server without its TLS Secret', { codec: { secretName: 'k' }, codecServer: { ...codecServer, tls: { secretName: '' } } }, /codecServer\/tls\/secretName/],
    ['the codec server without a caller check', { codec: { secretName: 'k' }, codecServer: { ...codecServer, jwt: { issuer: '', audience: '' }, tokens: { secretName: '' } } }, /codecServer\/jwt\/issuer.*codecServer\/tokens\/secretName/s],
    ['the codec server without the UI origin', { codec: { secretName: 'k' }, codecServer: { ...codecServer, uiOrigin: '' } }, /codecServer\/uiOrigin/],
    ["the codec server without the worker's keys", { codecServer }, /codec\/secretName/],
    ['HTTPS endpoints without their Secret', { endpointsTls: { enabled: true } }, /endpointsTls\/secretName/],
    ['a NetworkPolicy peer that is not an object', { networkPolicy: { enabled: true, metricsFrom: ['monitoring'] } }, /metricsFrom/],
  ])('fails `helm lint` on %s, naming the value', async (_label, values, reason) => {
    const run = await lintChart(values);
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toMatch(reason);
  });
});
