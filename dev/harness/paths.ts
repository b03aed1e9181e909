// Where the harness finds the repository and the sample runtimes, and where it
// keeps logs and state: all under .dev/ in the repository (git-ignored).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

export const samplesDir = join(repoRoot, 'deploy', 'samples');
