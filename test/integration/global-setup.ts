// One local cluster and one Temporal dev server per test run, shared by every integration test
// file through provide/inject (see support/context.ts). They stop in teardown, on SIGINT/SIGTERM,
// and (through their lifeline) within a second of this process dying any other way.
import type { TestProject } from 'vitest/node';
import { startTestStack } from '../../dev/harness/stack.js';
import './support/context.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // DISPATCH_KUBEFLOW_TEMPORAL=postgres (npm run test:postgres): temporal-server on PostgreSQL.
  const stack = await startTestStack(process.env.DISPATCH_KUBEFLOW_TEMPORAL === 'postgres' ? { temporal: 'postgres' } : {});
  const t = stack.timings;
  const { kube, temporal, logDir } = stack.info;
  console.log(
    `[harness] stack up in ${t.total} ms (etcd ${t.etcd}, kube-apiserver ${t.kubeApiserver}, CRDs ${t.crds}, ` +
      `kube-controller-manager ${t.kubeControllerManager}, nodes ${t.nodes}, JobSet/Trainer/Kueue ${t.controllers}, ` +
      `Temporal ${t.temporal}); ` +
      `API ${kube.server}, Temporal ${temporal.address}, logs ${logDir}`,
  );
  project.provide('stack', stack.info);
  return async () => {
    await stack.stop();
  };
}
