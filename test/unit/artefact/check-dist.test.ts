// scripts/artefact/check-dist.mjs, the artefact check's look at dist/, on made-up installs: it
// passes a dist/ of src/'s build importing built-ins, dependencies and its own files, and names
// every import of the dev harness, of a devDependency or of anything undeclared, every file that
// is not src/'s build, every bundled devDependency and every module that does not import.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runNode } from './run-node.js';

const CHECK = path.join(REPO, 'scripts/artefact/check-dist.mjs');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'check-dist-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A made-up install: package.json, and the given files under it. */
async function install(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(dir, name);
  const all = {
    'package.json': JSON.stringify({
      type: 'module',
      dependencies: { yaml: '^2' },
      devDependencies: { '@temporalio/testing': '^1', 'fast-check': '^4' },
    }),
    'node_modules/yaml/package.json': JSON.stringify({ name: 'yaml' }),
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

const bundleOf = (...ids: string[]) => ids.map((id) => `/***/ "${id}"\n() {}\n`).join('');

describe('scripts/artefact/check-dist.mjs', () => {
  it('passes the build of src/ that imports built-ins, a production dependency (by type) and its own files', async () => {
    const root = await install('clean', {
      'src/a.ts': '',
      'src/sub/b.ts': '',
      'dist/a.js':
        "import { readFileSync } from 'node:fs';\nimport {\n  b,\n} from './sub/b.js';\nexport const a = b;\n",
      'dist/sub/b.js': 'export const b = await import(/* webpackMode: "eager" */ \'node:path\');\n',
      'dist/sub/b.d.ts': "import type { Document } from 'yaml';\n",
      'dist/workflow-bundle.js': bundleOf(
        './src/a.ts',
        './node_modules/yaml/dist/index.js',
        // node_modules reached through a symbolic link
        '../../elsewhere/node_modules/yaml/dist/doc.js',
        '?31ff',
      ),
    });
    const run = await runNode([CHECK, '--root', root, '--sources', path.join(root, 'src')]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('dist/workflow-bundle.js: 4 modules, from src/ and 1 production packages');
    expect(run.stdout).toContain(
      'dist: 3 imports checked; 2 of 2 modules imported with production dependencies only',
    );
  });

  it('names the dev harness, a devDependency, an undeclared package, a stray file, a bundled devDependency, a missing file', async () => {
    const root = await install('dirty', {
      'src/harnessed.ts': '',
      'src/tested.ts': '',
      'src/undeclared.ts': '',
      'src/missing.ts': '',
      'dist/harnessed.js': "import { startServers } from '../dev/harness/servers.js';\n",
      'dist/tested.js': "const { TestWorkflowEnvironment } = await import('@temporalio/testing');\n",
      'dist/undeclared.js': "import 'left-pad';\n",
      'dist/missing.js': "export * from './gone.js';\n",
      'dist/stray.js': 'export {};\n',
      'dist/workflow-bundle.js': bundleOf(
        './src/a.ts',
        './node_modules/fast-check/lib/fast-check.js',
        './dev/harness/x.ts',
        '../../elsewhere/dev/harness/y.ts',
      ),
    });
    const run = await runNode([CHECK, '--root', root, '--sources', path.join(root, 'src')]);
    expect(run.code).toBe(1);
    const failures = run.stderr.split('\n').filter((line) => line.startsWith('  FAIL '));
    expect(failures).toEqual(
      expect.arrayContaining([
        '  FAIL dist/stray.js: not the build of a file of src/ (no src/stray.ts)',
        '  FAIL dist/harnessed.js: imports ../dev/harness/servers.js, outside dist/ (dev/harness/servers.js)',
        '  FAIL dist/tested.js: imports @temporalio/testing, a devDependency',
        '  FAIL dist/undeclared.js: imports left-pad, not a dependency of package.json',
        '  FAIL dist/missing.js: imports ./gone.js, which is not in dist/',
        '  FAIL dist/workflow-bundle.js: bundles ./dev/harness/x.ts, neither src/ nor a package',
        '  FAIL dist/workflow-bundle.js: bundles ../../elsewhere/dev/harness/y.ts, neither src/ nor a package',
        '  FAIL dist/workflow-bundle.js: bundles the devDependency fast-check',
        expect.stringMatching(
          /^ {2}FAIL dist\/tested\.js: does not import: Cannot find package '@temporalio\/testing'/,
        ),
      ]),
    );
    // Each module that does not import, and nothing else: stray.js imports fine.
    expect(failures.filter((line) => line.includes('does not import')).length).toBe(4);
    expect(run.stderr).toContain(`check-dist: FAIL: ${failures.length} failure(s)`);
  });
});
