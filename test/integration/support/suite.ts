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

/** Registers beforeAll/afterAll; the fields are set once beforeAll has run. */
export function dispatchSuite(prefix: string, options: Omit<DispatchHarnessOptions, 'namespace'> = {}): DispatchSuite {
  const suite = {} as DispatchSuite;
  beforeAll(async () => {
    suite.ns = await freshNamespace(prefix);
    suite.h = await startDispatch({ ...options, namespace: suite.ns.name });
    suite.runtimes = runtimeFixtures(suite.h.kube);
  });
  afterAll(async () => {
    await suite.runtimes?.dispose();
    await suite.h?.close();
    await suite.ns?.dispose();
  });
  return suite;
}
