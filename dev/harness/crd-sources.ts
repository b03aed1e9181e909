// Where each CRD comes from: the Go module of the same version as the controller built from it
// (scripts/servers/<server>/go.mod pins it), read from the Go module cache. Never hand-written and
// never copied into the repository: `go mod download` fetches the module if the cache lacks it.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export interface CrdSource {
  /** The consumer module under scripts/servers/ that pins the version. */
  server: string;
  module: string;
  /** The folder of CRD manifests inside the module. */
  dir: string;
}

export const CRD_SOURCES = {
  trainer: { server: 'trainer', module: 'github.com/kubeflow/trainer/v2', dir: 'manifests/base/crds' },
  jobset: { server: 'jobset', module: 'sigs.k8s.io/jobset', dir: 'config/components/crd/bases' },
  kueue: { server: 'kueue', module: 'sigs.k8s.io/kueue', dir: 'config/components/crd/bases' },
} as const satisfies Record<string, CrdSource>;

export type CrdSet = keyof typeof CRD_SOURCES;

const moduleDirs = new Map<string, { dir: string; version: string }>();

/** The module's folder in the Go module cache and its version, downloading it if needed. */
export function moduleDir(source: CrdSource): { dir: string; version: string } {
  const key = `${source.server} ${source.module}`;
  let found = moduleDirs.get(key);
  if (!found) {
    const out = execFileSync('go', ['mod', 'download', '-json', source.module], {
      cwd: join(repoRoot, 'scripts', 'servers', source.server),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const info = JSON.parse(out) as { Dir?: string; Version?: string; Error?: string };
    if (!info.Dir || !info.Version) throw new Error(`go mod download ${source.module}: ${info.Error ?? 'no Dir in its answer'}`);
    found = { dir: info.Dir, version: info.Version };
    moduleDirs.set(key, found);
  }
  return found;
}

/** The CRD folder of one set, e.g. <GOMODCACHE>/sigs.k8s.io/kueue@v0.19.2/config/components/crd/bases. */
export const crdDir = (set: CrdSet): string => join(moduleDir(CRD_SOURCES[set]).dir, CRD_SOURCES[set].dir);

/**
 * The Prometheus Operator's CRDs (ServiceMonitor, PrometheusRule, …), from its module zip. Not part
 * of the local cluster: only the Helm chart's test installs the two it renders.
 */
export const MONITORING_CRDS = {
  server: 'prometheus-operator',
  module: 'github.com/prometheus-operator/prometheus-operator',
  dir: 'example/prometheus-operator-crd',
} as const satisfies CrdSource;

/** The Prometheus Operator's CRD folder in the Go module cache. */
export const monitoringCrdDir = (): string => join(moduleDir(MONITORING_CRDS).dir, MONITORING_CRDS.dir);

/** The CRD folders the local cluster installs: Trainer's, JobSet's and Kueue's. */
export const allCrdDirs = (): string[] => (Object.keys(CRD_SOURCES) as CrdSet[]).map(crdDir);
