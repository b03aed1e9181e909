// A dispatch-kubeflow worker as an OS process of its own, so that a test can kill -9 it at any
// point of a Start and start another. It is the product's worker (createDispatchWorker) with its
// inputs taken from the environment:
//
//   DISPATCH_RELIABILITY_CONFIG   the parsed configuration, as JSON (config.kubeconfig names the kubeconfig)
//   DISPATCH_RELIABILITY_GATES    "proven" (default): gates set proven; "preflight": run ProbeBackend first;
//                                 "product": run as the product's worker runs (DispatchWorker.run: the
//                                 preflight loop and, in Kueue mode, the admission check controller)
//   DISPATCH_RELIABILITY_REQUEST_TIMEOUT_MS   the per-request bound of Kubernetes calls (optional)
//   DISPATCH_RELIABILITY_INTERCEPTORS   a module whose `activityInterceptors` run after dispatch's own (optional;
//                                 test/chaos/broken-worker.ts breaks the worker on purpose)
//   DISPATCH_WORKFLOW_BUNDLE      the prebuilt workflow bundle (no webpack at start)
//   TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE      the Temporal server, read as every Temporal tool reads them
//
// It prints one line on stdout once it polls, `{"ready":true,"pid":<pid>,"taskQueue":"..."}`, and
// one when it stops cleanly (SIGTERM/SIGINT); everything else goes to stderr.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Config } from '../../../src/model/config.js';
import { connectClient, connectWorker } from '../../../src/worker/connect.js';
import { createDispatchWorker } from '../../../src/worker/dispatch-worker.js';

export const READY = 'ready';

/** The gates a test worker reports without a preflight: all proven. */
const PROVEN = { reach: true, write: true, start: true, reasons: [], checkedAt: new Date(0).toISOString() };

async function main(): Promise<void> {
  const config = JSON.parse(process.env.DISPATCH_RELIABILITY_CONFIG ?? '') as Config;
  const requestTimeoutMs = Number(process.env.DISPATCH_RELIABILITY_REQUEST_TIMEOUT_MS) || undefined;
  const { connection, namespace } = await connectWorker();
  const client = await connectClient();
  const interceptors = process.env.DISPATCH_RELIABILITY_INTERCEPTORS;
  const activityInterceptors = interceptors
    ? ((await import(interceptors)) as { activityInterceptors: ActivityInterceptorsFactory[] }).activityInterceptors
    : undefined;
  const worker = await createDispatchWorker({
    config,
    connection,
    namespace,
    client,
    ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    ...(activityInterceptors ? { activityInterceptors } : {}),
  });
  const gates = process.env.DISPATCH_RELIABILITY_GATES;
  const running = gates === 'product' ? worker.run() : worker.worker.run();
  // The Watch waker runs in every worker, as worker.run() runs it (docs/contract.md §9b).
  const stopWaker = new AbortController();
  const waking = gates !== 'product' ? worker.waker?.run(stopWaker.signal) : undefined;
  if (gates === 'preflight') await worker.preflight();
  else if (gates !== 'product') worker.gates.update(PROVEN);
  const stop = () => (gates === 'product' ? worker.shutdown() : worker.worker.shutdown());
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(
    `${JSON.stringify({ [READY]: true, pid: process.pid, taskQueue: config.temporal.taskQueue })}\n`,
  );
  await running;
  stopWaker.abort();
  await waking;
  await connection.close();
  await client.connection.close();
  process.stdout.write(`${JSON.stringify({ stopped: true })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `worker-process: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
