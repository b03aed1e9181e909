// deploy/kubernetes/codec-server on the real API server: its Deployment and Service pass a strict
// server-side dry run in a fresh namespace (unknown or misplaced fields, wrong types and invalid
// probes are refused there). What they configure is checked in test/unit/deploy/codec-server.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { KUBERNETES_DIR, kustomize } from '../../unit/deploy/manifests.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';
import { createAll, placeIn } from './apply.js';

const CODEC_SERVER_DIR = join(KUBERNETES_DIR, 'codec-server');

describe('deploy/kubernetes/codec-server on the API server', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await freshNamespace('codec-deploy');
  });
  afterAll(async () => {
    await ns?.dispose();
  });

  it('passes a strict server-side dry run', async () => {
    const placed = placeIn(kustomize(CODEC_SERVER_DIR), ns.name);
    expect(placed.map((o) => o.kind).sort()).toEqual(['Deployment', 'Service']);
    await createAll(placed, { dryRun: true });
  });

  it('and the dry run is not vacuous: a misspelt probe field is refused', async () => {
    const [deployment] = placeIn(kustomize(CODEC_SERVER_DIR), ns.name).filter((o) => o.kind === 'Deployment');
    const spec = deployment!.spec as { template: { spec: { containers: Record<string, unknown>[] } } };
    spec.template.spec.containers[0]!.readinesProbe = spec.template.spec.containers[0]!.readinessProbe;
    await expect(createAll([deployment!], { dryRun: true })).rejects.toThrow(/readinesProbe/);
  });
});
