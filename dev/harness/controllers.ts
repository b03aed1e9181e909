// The real JobSet, Trainer and Kueue controller managers, each serving its webhooks on loopback
// with the harness certificate, leader election off, metrics off, and a health endpoint the
// harness polls for readiness (each reports ready only once its webhook server serves). They run
// as the cluster admin. Their configuration files are written next to the cluster's state.
import { existsSync, mkdirSync, copyFileSync, writeFileSync } from 'node:fs';
import { answers200 } from './health.js';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { LaunchOptions } from './etcd.js';
import type { WebhookPki } from './pki.js';
import { spawnServer, waitFor, type ServerProcess } from './process.js';

export interface ControllerPorts {
  webhook: number;
  health: number;
}

export interface ControllerOptions extends LaunchOptions {
  kubeconfig: string;
  /** This controller's own folder (config file, certificates). */
  dir: string;
  pki: WebhookPki;
  ports: ControllerPorts;
}

async function launch(name: string, binary: string, args: string[], options: ControllerOptions, env?: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const server = spawnServer({
    name,
    command: binary,
    args: [`--kubeconfig=${options.kubeconfig}`, ...args],
    logFile: join(options.logDir, `${name}.log`),
    lifeline: options.lifeline,
    detach: options.detach,
    env: { ...process.env, ...env },
  });
  await waitFor(() => answers200(`http://127.0.0.1:${options.ports.health}/readyz`), {
    what: `${name} /readyz`,
    timeoutMs: 120_000,
    intervalMs: 200,
    server,
  });
  return server;
}

function writeConfig(options: ControllerOptions, config: unknown): string {
  mkdirSync(options.dir, { recursive: true });
  const file = join(options.dir, 'config.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

const health = (ports: ControllerPorts) => ({
  healthProbeBindAddress: `127.0.0.1:${ports.health}`,
  readinessEndpointName: '/readyz',
  livenessEndpointName: '/healthz',
});

/** What JobSet's and Kueue's configurations share: no leader election, no self-made certificates, metrics off. */
const sharedSettings = (options: ControllerOptions) => ({
  leaderElection: { leaderElect: false },
  internalCertManagement: { enable: false },
  webhook: { host: '127.0.0.1', port: options.ports.webhook, certDir: options.pki.certDir },
  metrics: { bindAddress: '0' },
  health: health(options.ports),
});

/** JobSet: its webhook defaults spec.network, which Trainer's JobSets rely on. */
export function startJobSet(binary: string, options: ControllerOptions): Promise<ServerProcess> {
  const config = writeConfig(options, {
    apiVersion: 'config.jobset.x-k8s.io/v1alpha1',
    kind: 'Configuration',
    ...sharedSettings(options),
  });
  return launch('jobset', binary, [`--config=${config}`], options);
}

/**
 * Trainer: certificate management off; controller-runtime then reads the serving certificate from
 * $TMPDIR/k8s-webhook-server/serving-certs (Trainer's configuration has no certDir), so TMPDIR is
 * the controller's own folder.
 */
export function startTrainer(binary: string, options: ControllerOptions): Promise<ServerProcess> {
  const certDir = join(options.dir, 'k8s-webhook-server', 'serving-certs');
  mkdirSync(certDir, { recursive: true });
  for (const file of ['tls.crt', 'tls.key']) copyFileSync(join(options.pki.certDir, file), join(certDir, file));
  const config = writeConfig(options, {
    apiVersion: 'config.trainer.kubeflow.org/v1alpha1',
    kind: 'Configuration',
    leaderElection: { leaderElect: false },
    certManagement: { enable: false },
    webhook: { host: '127.0.0.1', port: options.ports.webhook },
    metrics: { bindAddress: '0' },
    health: health(options.ports),
  });
  return launch('trainer', binary, [`--config=${config}`], options, { TMPDIR: options.dir });
}

/**
 * Where Kueue v0.19.2 reads its metrics certificate when its internal certificate management is
 * off: a fixed path (cmd/kueue/main.go), read even when metrics are not served. The harness
 * provides a pair there once; any valid pair serves, since nothing scrapes the local Kueue.
 */
export const KUEUE_METRICS_CERT_DIR = '/etc/kueue/metrics/certs';

function provideKueueMetricsCert(pki: WebhookPki): void {
  const files = ['tls.crt', 'tls.key'];
  if (files.every((f) => existsSync(join(KUEUE_METRICS_CERT_DIR, f)))) return;
  try {
    mkdirSync(KUEUE_METRICS_CERT_DIR, { recursive: true });
    for (const file of files) copyFileSync(join(pki.certDir, file), join(KUEUE_METRICS_CERT_DIR, file));
  } catch (err) {
    throw new Error(
      `Kueue v0.19.2 reads ${KUEUE_METRICS_CERT_DIR}/tls.{crt,key} at start and exits without them; ` +
        `the harness could not write them (${(err as Error).message}): create that folder writable by this user once`,
      { cause: err },
    );
  }
}

/**
 * What a cluster's Kueue adds to the harness's configuration: top-level Configuration fields
 * (a MultiKueue manager's `namespace` and `multiKueue`, dev/harness/multikueue.ts) and feature gates.
 */
export interface KueueSettings {
  config?: Record<string, unknown>;
  featureGates?: Record<string, boolean>;
  /** Its log's verbosity (--zap-log-level; 5 shows the webhook's defaulting decisions). Default: Kueue's. */
  logLevel?: number;
}

/** Kueue: the TrainJob integration only, on-demand visibility off (it would need an APIService). */
export function startKueue(binary: string, options: ControllerOptions, settings: KueueSettings = {}): Promise<ServerProcess> {
  provideKueueMetricsCert(options.pki);
  const config = writeConfig(options, {
    apiVersion: 'config.kueue.x-k8s.io/v1beta2',
    kind: 'Configuration',
    ...sharedSettings(options),
    integrations: { frameworks: ['trainer.kubeflow.org/trainjob'] },
    ...settings.config,
  });
  const gates = Object.entries({ VisibilityOnDemand: false, ...settings.featureGates }).map(([gate, on]) => `${gate}=${on}`);
  const verbosity = settings.logLevel === undefined ? [] : [`--zap-log-level=${settings.logLevel}`];
  return launch('kueue', binary, [`--config=${config}`, `--feature-gates=${gates.join(',')}`, ...verbosity], options);
}
