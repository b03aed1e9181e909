// Where the harness finds the repository, the shared CRDs and the sample runtimes, and where it
// keeps logs and state: all under .dev/ in the repository (git-ignored).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

export const repoRoot = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

/** .dev/ in the repository: logs, dev:up state, the env file. */
export const devDir = join(repoRoot, '.dev');
export const logsDir = join(devDir, 'logs');

/**
 * The real CRDs: `../shared/crds/` beside the repository (CI clones shared/ there), or
 * DISPATCH_KUBEFLOW_CRDS when set.
 */
export const crdsRoot = process.env.DISPATCH_KUBEFLOW_CRDS ?? resolve(repoRoot, '..', 'shared', 'crds');

export const CRD_SETS = ['trainer-v2.3.0', 'kueue-v0.19.2'] as const;

export const samplesDir = join(repoRoot, 'deploy', 'samples');
