// Every workflow instantiates, in its own module cache, each module the workflow code statically
// imports (the SDK's reusable V8 context), so a heavy import costs memory per cached workflow: zod
// cost ~1.1 MB each (docs/performance.md). This keeps zod out of the bundle: validation runs in the
// worker's main thread (the prepareStart local activity).
import { bundleWorkflowCode } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

/** The bundle's modules, each with the modules it requires when it is evaluated. */
function staticGraph(code: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const parts = code.split(/^\/\*\*\*\/ "([^"]+)"$/m);
  for (let i = 1; i < parts.length; i += 2) {
    // `import()` with webpackMode "eager" becomes `Promise.resolve(/*! import() eager */).then(() => (__webpack_require__(...)))`:
    // evaluated when that line runs, so it is cut out before the static requires are collected.
    const body = parts[i + 1]!.replace(/\.then\(\(\) => \(__webpack_require__\([^)]*\)\)\)/g, '');
    graph.set(parts[i]!, [...body.matchAll(/__webpack_require__\((?:\/\*[^*]*\*\/ )*"([^"]+)"\)/g)].map((m) => m[1]!));
  }
  return graph;
}

function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    todo.push(...(graph.get(id) ?? []));
  }
  return seen;
}

describe('the workflow sandbox', () => {
  let graph: Map<string, string[]>;
  beforeAll(async () => {
    const workflowsPath = fileURLToPath(new URL('../../../src/workflows/index.ts', import.meta.url));
    const { code } = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
    graph = staticGraph(code);
  }, 60_000);

  it('instantiates no zod module when a workflow starts', () => {
    const loaded = reachable(graph, './src/workflows/index.ts');
    expect(loaded.size).toBeGreaterThan(20); // the parse found the workflow modules
    expect(loaded).toContain('./src/core/start/render.ts');
    expect([...loaded].filter((id) => id.includes('/zod/') || id.endsWith('/model/request.ts'))).toEqual([]);
  });

  it('bundles no validation at all: zod and the request schema stay in the worker', () => {
    expect([...graph.keys()].filter((id) => id.includes('/zod/') || id.endsWith('/core/start/validate.ts') || id.endsWith('/model/request.ts'))).toEqual([]);
  });
});
