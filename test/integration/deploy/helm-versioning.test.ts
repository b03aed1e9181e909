// The chart's versioned workers (docs/versioning.md, "Rolling a build"): with `versioning.builds`,
// one Deployment per build, each a version of the release's Temporal worker deployment (its
// DISPATCH_DEPLOYMENT_NAME and DISPATCH_BUILD_ID, the flags `dispatch-kubeflow worker` reads), its
// own Pods (a build label in its selector, so two builds never adopt each other's Pods), its own
// image and replicas; the Service still selects every build's Pods. Without builds, the one
// unversioned Deployment of before. Through the real helm and a strict server-side dry run.
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, one, type Manifest } from '../../unit/deploy/manifests.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';
import { applyDryRun, type KubeBody } from './apply.js';
import { lintChart, renderChart } from './helm.js';

const versioning = {
  builds: [
    { id: '1.4.0' },
    { id: '1.5.0', image: { tag: '1.5.0' }, replicas: 3 },
  ],
};

const envOf = (deployment: V1Deployment) =>
  Object.fromEntries((deployment.spec!.template.spec!.containers[0]!.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('deploy/helm/dispatch-kubeflow: one Deployment per build with versioning', () => {
  let release: TestNamespace;
  let rendered: Manifest[];
  let unversioned: Manifest[];

  beforeAll(async () => {
    release = await freshNamespace('helm-versioning');
    [rendered, unversioned] = await Promise.all([
      renderChart({ namespace: release.name, values: { versioning } }),
      renderChart({ namespace: release.name }),
    ]);
  });
  afterAll(async () => {
    await release?.dispose();
  });

  it('passes `helm lint --strict`, and the real API server accepts both Deployments (server-side apply, dry run, strict)', async () => {
    expect((await lintChart({ versioning })).code).toBe(0);
    await applyDryRun(rendered.map(({ source: _source, ...object }) => object as KubeBody), 'helm-versioning-test');
  });

  it("renders a Deployment per build: its name, the deployment's name and its build id for the worker, its image and replicas, its own Pods", () => {
    const deployments = all<V1Deployment>(rendered, 'Deployment');
    const fullname = one<V1Deployment>(unversioned, 'Deployment').metadata!.name!;
    expect(deployments.map((d) => d.metadata!.name)).toEqual([`${fullname}-1.4.0`, `${fullname}-1.5.0`]);
    const deploymentName = `${fullname}-${release.name}`;
    expect(deployments.map(envOf).map((env) => [env.DISPATCH_DEPLOYMENT_NAME, env.DISPATCH_BUILD_ID])).toEqual([
      [deploymentName, '1.4.0'],
      [deploymentName, '1.5.0'],
    ]);
    expect(deployments.map((d) => d.spec!.template.spec!.containers[0]!.image)).toEqual(['dispatch-kubeflow:0.1.0', 'dispatch-kubeflow:1.5.0']);
    expect(deployments.map((d) => d.spec!.replicas)).toEqual([1, 3]);
    // Each selects its own Pods, and not the other build's.
    const [a, b] = [deployments[0]!, deployments[1]!];
    expect(matches(a.spec!.selector.matchLabels!, a.spec!.template.metadata!.labels)).toBe(true);
    expect(matches(a.spec!.selector.matchLabels!, b.spec!.template.metadata!.labels)).toBe(false);
    expect(matches(b.spec!.selector.matchLabels!, a.spec!.template.metadata!.labels)).toBe(false);
    // The Service (metrics) selects both builds' Pods.
    const service = one<V1Service>(rendered, 'Service');
    for (const d of deployments) expect(matches(service.spec!.selector!, d.spec!.template.metadata!.labels)).toBe(true);
  });

  it('without builds, renders the one unversioned Deployment: no build label, no deployment variables', () => {
    const deployment = one<V1Deployment>(unversioned, 'Deployment');
    expect(Object.keys(deployment.spec!.selector.matchLabels!)).not.toContain('dispatch-kubeflow/build');
    expect(Object.keys(envOf(deployment))).not.toContain('DISPATCH_BUILD_ID');
  });

  it('refuses a build without an id, or with one that is no label value', async () => {
    expect((await lintChart({ versioning: { builds: [{ image: { tag: 'x' } }] } })).code).not.toBe(0);
    expect((await lintChart({ versioning: { builds: [{ id: 'Not A Label' }] } })).code).not.toBe(0);
  });
});
