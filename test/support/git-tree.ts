// A commit's tree outside the work tree: `git archive` of some of its paths into a temporary folder
// (the previous release's worker and Go client, test/integration/support/previous-release.ts; a
// recorded build's workflows, test/unit/replay/builds.ts). Needs the commit in this clone: CI runs
// on a full clone.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** `paths` of the commit's tree in a temporary folder; `remove` deletes it. */
export function treeOf(commit: string, paths: string[]): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `dk-${commit.slice(0, 7)}-`));
  const archive = execFileSync('git', ['archive', '--format=tar', commit, ...paths], {
    cwd: REPO_ROOT,
    maxBuffer: 256 << 20,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
