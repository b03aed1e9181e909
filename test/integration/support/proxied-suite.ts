// The frame of a test file that puts faults between dispatch and the API server: a fresh
// namespace, a fault proxy in front of the API server, and two workers through it, each on its own
// task queue: `h` on a short CallBound, for the paths where the bound must run out (so they end in
// seconds), and `patient` on a long one, for the paths that must answer on a loaded machine, where
// a call that does answer can take longer than the short bound. Faults are cleared after each test.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startDispatch, type DispatchHarness } from './dispatch.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { freshNamespace, type TestNamespace } from './kube.js';

export interface ProxiedSuite {
  ns: TestNamespace;
  proxy: FaultProxy;
  /** Through the proxy, CallBound `short`. */
  h: DispatchHarness;
  /** Through the proxy, CallBound `patient` (default 60 s). */
  patient: DispatchHarness;
}

/** Registers beforeAll/afterAll/afterEach; the fields are set once beforeAll has run. */
export function proxiedSuite(prefix: string, timeouts: { short: string; patient?: string; workload?: string }): ProxiedSuite {
  const suite = {} as ProxiedSuite;
  beforeAll(async () => {
    suite.ns = await freshNamespace(prefix);
    suite.proxy = await startFaultProxy();
    const worker = (call: string) =>
      startDispatch({
        namespace: suite.ns.name,
        access: suite.proxy.accessFor({ ...suite.proxy.accessFor(), namespace: suite.ns.name }),
        config: { timeouts: { call, workload: timeouts.workload ?? '5s' } },
        requestTimeoutMs: 1_000,
      });
    [suite.h, suite.patient] = await Promise.all([worker(timeouts.short), worker(timeouts.patient ?? '60s')]);
  });
  afterEach(() => suite.proxy?.clear());
  afterAll(async () => {
    await suite.h?.close();
    await suite.patient?.close();
    await suite.proxy?.close();
    await suite.ns?.dispose();
  });
  return suite;
}
