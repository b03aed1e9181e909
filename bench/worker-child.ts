// A dispatch-kubeflow worker in its own process, so that its CPU and memory are its own: the
// product's createDispatchWorker with the bench's configuration, answering the parent's requests
// for its resource usage over the IPC channel. Started by worker-handle.ts; not run by hand.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createDispatchWorker } from '../src/worker/dispatch-worker.js';
import type { ChildReply, ParentRequest, WorkerSpec } from './worker-handle.js';

const spec = JSON.parse(process.env.BENCH_WORKER_SPEC ?? '') as WorkerSpec;
const send = (reply: ChildReply) => process.send?.(reply);

const connection = await NativeConnection.connect({ address: spec.temporalAddress });
const client = new Client({
  connection: await Connection.connect({ address: spec.temporalAddress }),
  namespace: spec.temporalNamespace,
});
const dispatch = await createDispatchWorker({
  config: spec.config,
  connection,
  namespace: spec.temporalNamespace,
  client,
  kubeconfigPath: spec.kubeconfigPath,
  workflowBundlePath: spec.bundlePath,
  tuning: spec.tuning,
});
// No preflight: the bench measures Starts, and a probe Start would be one more on the API server.
dispatch.gates.update({
  reach: true,
  write: true,
  start: true,
  reasons: [],
  checkedAt: new Date().toISOString(),
});

// RSS sampled every 100 ms: the peak since the parent last asked for a fresh one.
let peakRss = process.memoryUsage.rss();
setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100).unref();

// In Kueue mode, dispatch's admission check controller, as the product's run() starts it (that
// also starts the preflight loop, which the bench leaves out).
const stopController = new AbortController();
const stop = () => (stopController.abort(), dispatch.worker.shutdown());
process.on('message', (request: ParentRequest) => {
  if (request.type === 'stop') return stop();
  // With --expose-gc (BENCH_WORKER_NODE_ARGS), the heap figure is what is live, not what awaits collection.
  (globalThis as { gc?: () => void }).gc?.();
  const rss = process.memoryUsage.rss();
  const usage = {
    cpu: process.cpuUsage(),
    rss,
    peakRss: Math.max(peakRss, rss),
    heapUsed: process.memoryUsage().heapUsed,
  };
  if (request.type === 'reset-peak') peakRss = rss;
  send({ type: 'usage', id: request.id, usage });
});
// The parent gone (killed, or finished without stopping us): stop rather than linger.
process.on('disconnect', stop);

const running = dispatch.worker.run();
const controlling = dispatch.admissionController?.run(stopController.signal);
const waking = dispatch.waker?.run(stopController.signal);
send({ type: 'ready' });
await running;
stopController.abort();
await Promise.all([controlling, waking]);
await connection.close();
process.exit(0);
