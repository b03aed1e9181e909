// One local cluster and one Temporal dev server per test run, shared by every integration test
// file through provide/inject (see support/context.ts). They stop in teardown, on SIGINT/SIGTERM,
// and (through their lifeline) within a second of this process dying any other way.
import type { TestProject } from 'vitest/node';
import { startTestStack } from '../../dev/harness/stack.js';
import './support/context.js';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * The run's one stack, shared by the projects that name this setup (integration, multikueue,
 * reliability): Vitest calls each project's global setup, in the one main process, but loads the
 * module for each, so what they share is kept on globalThis. The last project's teardown stops it.
 */
const shared = globalThis as typeof globalThis & { dispatchTestStack?: { stack: Promise<Stack>; users: number } };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // DISPATCH_KUBEFLOW_TEMPORAL=postgres (npm run test:postgres): temporal-server on PostgreSQL.
  const kept = (shared.dispatchTestStack ??= {
    stack: startTestStack(process.env.DISPATCH_KUBEFLOW_TEMPORAL === 'postgres' ? { temporal: 'postgres' } : {}),
    users: 0,
  });
  kept.users += 1;
  const first = kept.users === 1;
  const stack = await kept.stack;
  const t = stack.timings;
  const { kube, temporal, logDir } = stack.info;
  if (first) console.log(
    `[harness] stack up in ${t.total} ms (etcd ${t.etcd}, kube-apiserver ${t.kubeApiserver}, CRDs ${t.crds}, ` +
      `kube-controller-manager ${t.kubeControllerManager}, nodes ${t.nodes}, JobSet/Trainer/Kueue ${t.controllers}, ` +
      `Temporal ${t.temporal}); ` +
      `API ${kube.server}, Temporal ${temporal.address}, logs ${logDir}`,
  );
  project.provide('stack', stack.info);
  return async () => {
    kept.users -= 1;
    if (kept.users > 0) return;
    shared.dispatchTestStack = undefined;
    await stack.stop();
  };
}
