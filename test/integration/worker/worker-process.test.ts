// `dispatch-kubeflow worker` as an operator runs it: a separate process, configured by a file and
// the standard TEMPORAL_* variables. It proves the backend at boot (the preflight), serves Starts,
// and exits cleanly and promptly on SIGTERM, also while its first preflight runs.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { startRequest } from '../../support/requests.js';
import { freshNamespace, uniqueName, type TestNamespace } from '../support/kube.js';
import { temporalEnv } from '../support/temporal.js';
import { SHUTDOWN_BOUND_MS, spawnWorkerCommand, writeWorkerConfig, type WorkerCommand } from '../support/worker-command.js';

let ns: TestNamespace;
let worker: WorkerCommand;

const taskQueue = uniqueName('worker-process');

beforeAll(async () => {
  ns = await freshNamespace('worker');
  worker = await spawnWorkerCommand({ config: writeWorkerConfig(ns.name, taskQueue) });
});

afterAll(async () => {
  if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await ns?.dispose();
});

it('proves the backend at boot, serves a Start, and exits 0 on SIGTERM', async () => {
  await expect.poll(() => worker.output(), { timeout: 90_000, interval: 250 }).toMatch(/"preflight finished".*"start":true/);

  const env = await temporalEnv();
  try {
    const client = new DispatchKubeflowClient(env.client, { namespace: ns.name, taskQueue });
    const result = await client.startTrainJob(startRequest());
    expect(result.ref).toMatch(new RegExp(`^${ns.name}/dj-`));
  } finally {
    await env.teardown();
  }

  const started = Date.now();
  worker.child.kill('SIGTERM');
  expect(await worker.exited).toBe(0);
  expect(Date.now() - started).toBeLessThan(SHUTDOWN_BOUND_MS);
  expect(worker.output()).toMatch(/"worker stopped"/);
});

it("exits 0 within the same bound on SIGTERM during its first preflight, not after the long poll for the probe's result", async () => {
  const early = await spawnWorkerCommand({ config: writeWorkerConfig(ns.name, uniqueName('worker-early')) });
  try {
    // The health server answers once the worker exists; it polls, so it is ready (docs/contract.md
    // §10), while its first preflight has not ended yet: the backend's gates are unknown.
    await expect
      .poll(() => fetch(`${early.healthUrl}/readyz`).then((r) => r.json(), () => undefined), { timeout: 90_000, interval: 100 })
      .toMatchObject({ ready: true, backend: { healthy: false, reasons: [expect.stringMatching(/^gates: unknown/)] } });
    const started = Date.now();
    early.child.kill('SIGTERM');
    expect(await early.exited, early.output()).toBe(0);
    expect(Date.now() - started, early.output()).toBeLessThan(SHUTDOWN_BOUND_MS);
    expect(early.output()).not.toMatch(/"preflight finished"/);
  } finally {
    if (early.child.exitCode === null) early.child.kill('SIGKILL');
  }
});
