// The usual frame of a test file that drives the workflows: a fresh namespace, a worker on its own
// task queue with the typed client, and runtime fixtures, set up before the file's tests and
// removed after them.
import { afterAll, beforeAll } from 'vitest';
import { startDispatch, type DispatchHarness, type DispatchHarnessOptions } from './dispatch.js';
import { freshNamespace, type TestNamespace } from './kube.js';
import { runtimeFixtures, type RuntimeFixtures } from './runtimes.js';

export interface DispatchSuite {
  ns: TestNamespace;
  h: DispatchHarness;
  runtimes: RuntimeFixtures;
}

export type SuiteOptions = Omit<DispatchHarnessOptions, 'namespace'>;

/**
 * Registers beforeAll/afterAll (in the enclosing describe, or for the file); the fields are set
 * once beforeAll has run. Options that depend on the namespace (an identity's access, a grant made
 * before the worker starts) are given as a function of its name.
 */
export function dispatchSuite(
  prefix: string,
  options: SuiteOptions | ((namespace: string) => SuiteOptions | Promise<SuiteOptions>) = {},
): DispatchSuite {
  const suite = {} as DispatchSuite;
  beforeAll(async () => {
    suite.ns = await freshNamespace(prefix);
    const resolved = typeof options === 'function' ? await options(suite.ns.name) : options;
    suite.h = await startDispatch({ ...resolved, namespace: suite.ns.name });
    suite.runtimes = runtimeFixtures(suite.h.kube);
  });
  afterAll(async () => {
    await suite.runtimes?.dispose();
    await suite.h?.close();
    await suite.ns?.dispose();
  });
  return suite;
}
