// Installs the real Trainer, JobSet and Kueue CRDs, verbatim but for Kueue's conversion webhook, and waits until discovery serves every
// version of each, so a client that starts right after sees the real schema in force.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kubeCall, kubeRequest, type KubeAccess } from './kube-access.js';
import { waitFor } from './process.js';

interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Every CustomResourceDefinition in the YAML files of the given directories. */
export async function readCrds(dirs: string[]): Promise<Crd[]> {
  const crds: Crd[] = [];
  for (const dir of dirs) {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml')).sort();
    if (files.length === 0) throw new Error(`no CRD files in ${dir}`);
    for (const file of files) {
      for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
        const obj = doc.toJS() as { kind?: string } | null;
        if (obj?.kind === 'CustomResourceDefinition') crds.push(obj as Crd);
      }
    }
  }
  return crds;
}

/**
 * Creates the CRDs (replacing none: the cluster is fresh) and waits until discovery serves them.
 * `conversions` sets spec.conversion of the named CRDs, as a release's kustomize patch does; `only`
 * installs the named CRDs alone (each must be in the folders).
 */
export async function installCrds(
  admin: KubeAccess,
  dirs: string[],
  options: { conversions?: Record<string, unknown>; only?: string[]; timeoutMs?: number } = {},
): Promise<string[]> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const found = await readCrds(dirs);
  const { only } = options;
  const missing = only?.filter((name) => !found.some((crd) => crd.metadata.name === name)) ?? [];
  if (missing.length > 0) throw new Error(`no CRD ${missing.join(', ')} in ${dirs.join(', ')}`);
  const crds = only ? found.filter((crd) => only.includes(crd.metadata.name)) : found;
  await Promise.all(
    crds.map(async (read) => {
      const conversion = options.conversions?.[read.metadata.name];
      const crd = conversion ? { ...read, spec: { ...read.spec, conversion } } : read;
      const res = await kubeRequest(admin, 'POST', CRD_PATH, crd, { timeoutMs });
      if (res.status === 409) return; // Already there (a restart over the same etcd data).
      if (res.status !== 201) throw new Error(`creating CRD ${crd.metadata.name}: HTTP ${res.status}: ${res.body.slice(0, 500)}`);
    }),
  );
  const served = crds.flatMap((crd) =>
    crd.spec.versions.filter((v) => v.served).map((v) => ({ path: `/apis/${crd.spec.group}/${v.name}`, plural: crd.spec.names.plural })),
  );
  await Promise.all(
    served.map(({ path, plural }) =>
      waitFor(
        async () => {
          const list = (await kubeCall(admin, 'GET', path)) as { resources?: { name: string }[] };
          return list.resources?.some((r) => r.name === plural) ? true : undefined;
        },
        { what: `discovery to serve ${plural} at ${path}`, timeoutMs, intervalMs: 200 },
      ),
    ),
  );
  return crds.map((crd) => crd.metadata.name);
}
