// deploy/kubernetes/codec-server: the codec server's Deployment and Service agree with the command
// they run (every variable one `codec-server` reads, a caller check configured, TLS from the mounted
// Secret, probes on /healthz over HTTPS) and with each other; docker-compose.yml's codec-server too. test/integration/deploy/codec-server.test.ts
// has the API server validate them.
import { join } from 'node:path';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addCodecServerOptions } from '../../../src/codec/command-options.js';
import { HEALTH_PATH } from '../../../src/codec/codec-server.js';
import { parseListenAddress } from '../../../src/observability/listen.js';
import { bindMounts, environmentOf, interpolateAll, readCompose } from './compose.js';
import { KUBERNETES_DIR, kustomize, one } from './manifests.js';

const CODEC_SERVER_DIR = join(KUBERNETES_DIR, 'codec-server');
const objects = kustomize(CODEC_SERVER_DIR);
const deployment = one<V1Deployment>(objects, 'Deployment');
const service = one<V1Service>(objects, 'Service');
const pod = deployment.spec!.template.spec!;
const container = pod.containers[0]!;
const env = new Map((container.env ?? []).map((e) => [e.name, e.value]));
/** The variable of each option of `codec-server`. */
const variables = new Map(addCodecServerOptions(new Command()).options.map((o) => [o.envVar!, o.long!]));

describe('deploy/kubernetes/codec-server', () => {
  it('is a Deployment and its Service, in the namespace of the worker', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(['Deployment', 'Service']);
    for (const o of objects) expect(o.metadata.namespace).toBe('ml-jobs');
  });

  it('runs `codec-server` with only variables the command reads, and a caller check (JWT), not --insecure-no-auth', () => {
    expect(container.args?.[0]).toBe('codec-server');
    for (const name of env.keys()) expect(variables.has(name), `${name} is read by no option`).toBe(true);
    for (const arg of container.args!.slice(1)) {
      const flag = arg.split('=')[0]!;
      expect([...variables.values()], arg).toContain(flag);
    }
    expect(env.get('DISPATCH_CODEC_JWT_ISSUER')).toMatch(/^https:\/\//);
    expect(env.get('DISPATCH_CODEC_JWT_AUDIENCE')).toBeTruthy();
    expect(env.get('DISPATCH_CODEC_UI_ORIGIN')).toMatch(/^https:\/\/[^/]+$/);
    expect(env.has('DISPATCH_CODEC_INSECURE_NO_AUTH')).toBe(false);
    expect(env.has('DISPATCH_CODEC_TOKEN_FILE')).toBe(false);
    // The keys, from the Secret the docs have the operator create.
    expect(container.envFrom).toEqual([{ secretRef: { name: 'dispatch-kubeflow-codec' } }]);
  });

  it('serves TLS from the mounted kubernetes.io/tls Secret', () => {
    const mount = container.volumeMounts!.find((m) => m.name === 'tls')!;
    const volume = pod.volumes!.find((v) => v.name === 'tls')!;
    expect(volume.secret?.secretName).toBe('dispatch-kubeflow-codec-tls');
    expect(mount.readOnly).toBe(true);
    expect(env.get('DISPATCH_CODEC_TLS_CERT')).toBe(`${mount.mountPath}/tls.crt`);
    expect(env.get('DISPATCH_CODEC_TLS_KEY')).toBe(`${mount.mountPath}/tls.key`);
  });

  it('listens on the port the Service and the probes target; the probes ask /healthz over HTTPS', () => {
    const listen = container.args!.find((a) => a.startsWith('--listen='))!.slice('--listen='.length);
    const port = container.ports!.find((p) => p.name === 'codec')!;
    expect(parseListenAddress(listen)).toEqual({ host: '0.0.0.0', port: port.containerPort });
    expect(service.spec!.ports).toEqual([
      { name: 'codec', port: 8888, targetPort: 'codec', protocol: 'TCP' },
    ]);
    expect(service.spec!.selector).toEqual(deployment.spec!.selector.matchLabels);
    for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe])
      expect(probe?.httpGet).toEqual({ path: HEALTH_PATH, port: 'codec', scheme: 'HTTPS' });
  });

  it('runs locked down: non-root, read-only root, no privilege escalation, no capability, no API token', () => {
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.image).toBe('dispatch-kubeflow:0.1.0');
  });
});

describe("docker-compose.yml's codec-server (profile codec)", () => {
  const compose = interpolateAll(readCompose());
  const codecServer = compose.services['codec-server']!;
  const worker = compose.services.worker!;
  const environment = (codecServer.environment ?? {}) as Record<string, string>;

  it("runs `codec-server` of the worker image, only with the codec profile, with the worker's keys", () => {
    expect(codecServer.image).toBe(worker.image);
    expect(codecServer.profiles).toEqual(['codec']);
    expect((codecServer.command as string[])[0]).toBe('codec-server');
    expect(environmentOf(codecServer, 'DISPATCH_CODEC_KEYS')).toBe(
      environmentOf(worker, 'DISPATCH_CODEC_KEYS'),
    );
    for (const name of Object.keys(environment).filter((n) => n !== 'DISPATCH_CODEC_KEYS'))
      expect(variables.has(name), `${name} is read by no option`).toBe(true);
  });

  it('checks callers with the mounted token file (never --insecure-no-auth), and publishes on loopback only', () => {
    expect(environment.DISPATCH_CODEC_INSECURE_NO_AUTH).toBeUndefined();
    expect(JSON.stringify(codecServer.command)).not.toContain('insecure');
    const tokens = bindMounts(codecServer).find((m) => m.target === environment.DISPATCH_CODEC_TOKEN_FILE);
    expect(tokens?.readOnly).toBe(true);
    expect(codecServer.ports).toEqual(['127.0.0.1:8888:8888']);
    const listen = (codecServer.command as string[]).find((a) => a.startsWith('--listen='))!;
    expect(parseListenAddress(listen.slice('--listen='.length)).port).toBe(8888);
    expect(JSON.stringify(codecServer.healthcheck?.test)).toContain(`:8888${HEALTH_PATH}`);
  });
});
