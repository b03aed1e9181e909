// The layers of eslint.config.js, checked through the whole relative-import graph of src/: the lint
// rules see one file's own imports, so a layer could still reach what it must not through a file
// it may import (src/kube importing src/model/errors.ts, which imported @temporalio/common).
// Type-only imports (`import type`, `export type`) vanish at compile time and are not followed, as
// the lint rules allow the shell's types in deterministic code.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const SRC = join(ROOT, 'src');

/** Every .ts file under `dir`, relative to the repository root. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** What `file` loads: relative imports resolved to repository paths (.js read as .ts), packages as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].map((match) => {
    const specifier = (match[1] ?? match[2] ?? match[3])!;
    if (!specifier.startsWith('.')) return specifier;
    return relative(ROOT, resolve(dirname(join(ROOT, file)), specifier)).replace(/\.js$/, '.ts');
  });
}

const GRAPH = new Map(sources(SRC).map((file) => [file, importsOf(file)]));

/** The first import chain from `file` to a module `forbidden` names, or undefined when none reaches one. */
function chainTo(file: string, forbidden: (module: string) => boolean): string[] | undefined {
  const seen = new Set<string>([file]);
  const queue: string[][] = [[file]];
  while (queue.length > 0) {
    const chain = queue.shift()!;
    for (const next of GRAPH.get(chain.at(-1)!) ?? []) {
      if (forbidden(next)) return [...chain, next];
      if (seen.has(next) || !GRAPH.has(next)) continue;
      seen.add(next);
      queue.push([...chain, next]);
    }
  }
  return undefined;
}

/** The chains by which the files under `layer` reach what `forbidden` names, one per file. */
function violations(layer: string, forbidden: (module: string) => boolean): string[] {
  return [...GRAPH.keys()]
    .filter((file) => file.startsWith(layer))
    .map((file) => chainTo(file, forbidden))
    .filter((chain) => chain !== undefined)
    .map((chain) => chain.join(' -> '));
}

const under = (...folders: string[]) => (module: string) => folders.some((folder) => module.startsWith(`src/${folder}/`));
const packages = (...prefixes: string[]) => (module: string) => prefixes.some((prefix) => module.startsWith(prefix));
const either = (...tests: ((module: string) => boolean)[]) => (module: string) => tests.some((test) => test(module));
const nodeBuiltin = (module: string) => module.startsWith('node:') || builtinModules.includes(module.split('/')[0]!);

const DETERMINISTIC = ['src/model/', 'src/core/', 'src/workflows/', 'src/observability/workflow/'];
/** The zod-free part of src/contract, which deterministic code imports (the names; the search attribute keys; the summaries; the versioning behaviors). */
const CONTRACT_NAMES = ['src/contract/names.ts', 'src/contract/search-attributes.ts', 'src/contract/summaries.ts', 'src/contract/versioning.ts'];
const contractTable = (module: string) => under('contract')(module) && !CONTRACT_NAMES.includes(module);
const deterministicMayNotReach = either(
  nodeBuiltin,
  packages('@kubernetes/', '@temporalio/activity', '@temporalio/client', '@temporalio/worker'),
  under('activities', 'worker', 'client', 'kube'),
  contractTable,
);

const RULES: { layer: string; what: string; forbidden: (module: string) => boolean }[] = [
  { layer: 'src/kube/', what: 'Temporal, or the layers above it', forbidden: either(packages('@temporalio/'), under('activities', 'workflows', 'worker', 'client', 'contract', 'observability/workflow')) },
  { layer: 'src/core/', what: 'Temporal', forbidden: packages('@temporalio/') },
  ...DETERMINISTIC.map((layer) => ({ layer, what: 'Node built-ins, I/O or the imperative shell', forbidden: deterministicMayNotReach })),
  { layer: 'src/contract/', what: 'I/O or its callers', forbidden: either(nodeBuiltin, packages('@kubernetes/', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'), under('kube', 'activities', 'workflows', 'worker', 'client')) },
];

describe('the layers hold through every chain of imports, not only each file’s own', () => {
  it('reads the graph: src/workflows reaches src/core, src/kube reaches @kubernetes/client-node', () => {
    expect(chainTo('src/workflows/start-trainjob.ts', under('core'))).toBeDefined();
    expect(violations('src/kube/', packages('@kubernetes/')).length).toBeGreaterThan(0);
  });

  for (const { layer, what, forbidden } of RULES) {
    it(`nothing under ${layer} reaches ${what}`, () => {
      expect(violations(layer, forbidden), `import chains from ${layer} to ${what}`).toEqual([]);
    });
  }
});
