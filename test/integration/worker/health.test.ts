// GET /readyz and GET /livez of `dispatch-kubeflow worker` (docs/observability.md, Health), on the
// real servers. Ready means this pod can work (docs/contract.md §10): it polls and Temporal answers
// it. So it is ready before its first preflight ends, stays ready while the Kubernetes API server is
// unreachable or a gate is unproven (the backend reported in the body's `backend` and in
// dispatch_gate_proven), and is not ready only while its Temporal is down (alive all along), ready
// again when it is back.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { startDevTemporal, type DevTemporal } from '../../../dev/harness/temporal.js';
import { freePorts, stopServer } from '../../../dev/harness/process.js';
import { stackInfo } from '../support/context.js';
import { workflowBundle, writeKubeconfig } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshNamespace, kubeAccess, kubeConfig, uniqueName, type TestNamespace } from '../support/kube.js';
import { trainingRuntime } from '../support/trainer.js';
import { spawnWorkerCommand, writeWorkerConfig, type WorkerCommand } from '../support/worker-command.js';
import { CustomObjectsApi } from '@kubernetes/client-node';

interface Answer {
  status: number;
  body: { ready?: boolean; alive?: boolean; reasons: string[]; backend?: { healthy: boolean; reasons: string[] } };
}

const dir = mkdtempSync(join(tmpdir(), 'dispatch-health-'));
let bundle: Record<string, string>;

async function probe(worker: WorkerCommand, path: '/readyz' | '/livez'): Promise<Answer | undefined> {
  try {
    const response = await fetch(`${worker.healthUrl}${path}`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  } catch {
    return undefined; // not serving yet
  }
}

/**
 * Polls /readyz until `until` holds; the answers seen meanwhile, and the worker's log, in the
 * message. Every answer seen, the last included, goes to `seen` when given.
 */
async function readyzUntil(worker: WorkerCommand, until: (answer: Answer) => boolean, timeoutMs: number, seen: Answer[] = []): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe(worker, '/readyz');
    if (answer) seen.push(answer);
    if (answer && until(answer)) return answer;
    if (Date.now() > deadline || worker.child.exitCode !== null)
      throw new Error(`/readyz never met the condition; answers seen: ${[...new Set(seen.map((a) => JSON.stringify(a)))].join(' ')}\nworker output:\n${worker.output().slice(-4_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The value of dispatch_gate_proven{gate} the worker exports, or undefined before it has one. */
async function gateProven(worker: WorkerCommand, gate: string): Promise<number | undefined> {
  const text = await fetch(`${worker.dispatchMetricsUrl}/metrics`).then((r) => r.text(), () => '');
  const line = text.split('\n').find((l) => l.startsWith(`dispatch_gate_proven{gate="${gate}"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

const ready = (answer: Answer) => answer.status === 200 && answer.body.ready === true;
const backendHealthy = (answer: Answer) => ready(answer) && answer.body.backend?.healthy === true;
const HEALTHY = { ready: true, reasons: [], backend: { healthy: true, reasons: [] } };

beforeAll(async () => {
  // One prebuilt bundle for both workers: no webpack in each process.
  const file = join(dir, 'workflow-bundle.js');
  writeFileSync(file, (await workflowBundle()).code);
  bundle = { DISPATCH_WORKFLOW_BUNDLE: file };
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readiness follows Temporal, not the Kubernetes API', () => {
  let temporal: DevTemporal;
  let ports: [number, number];
  let ns: TestNamespace;
  let proxy: FaultProxy;
  let worker: WorkerCommand;
  // A Temporal dev server of this file's own, keeping its state in a file, so that it can be
  // stopped and started again on the same port.
  const launch = () =>
    startDevTemporal({ binary: stackInfo().temporal.cli, logDir: dir, port: ports[0], uiPort: ports[1], dbFile: join(dir, 'temporal.db'), lifeline: process.pid });

  beforeAll(async () => {
    ports = (await freePorts(2)) as [number, number];
    [temporal, ns, proxy] = await Promise.all([launch(), freshNamespace('health'), startFaultProxy()]);
    // The worker reaches the API server through the proxy; a probe unanswered for CallBound (5 s)
    // leaves the reach gate unproven, and the next preflight comes within 5 s.
    const kubeconfig = writeKubeconfig(proxy.accessFor(kubeAccess('admin', ns.name)));
    const config = writeWorkerConfig(ns.name, uniqueName('health'), ['timeouts:', '  call: 5s'], kubeconfig);
    worker = await spawnWorkerCommand({ config, temporalAddress: temporal.address, env: bundle, args: ['--preflight-interval', '5s'] });
  }, 120_000);
  afterAll(async () => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    if (temporal) await stopServer(temporal.process);
    await proxy?.close();
    await ns?.dispose();
  });

  it('is ready once it polls, the backend healthy once the gates are proven; stays ready while the Kubernetes API is unreachable, the backend and dispatch_gate_proven reporting it; not ready while Temporal is down (alive all along), and ready again once it is back', async () => {
    expect((await readyzUntil(worker, backendHealthy, 90_000)).body).toEqual(HEALTHY);
    expect(await gateProven(worker, 'reach')).toBe(1);

    // The API server unreachable from the worker: every request reset, the open watches cut.
    proxy.inject({ path: /.*/, times: Infinity, action: 'reset' });
    proxy.cutConnections();
    const duringOutage: Answer[] = [];
    const outage = await readyzUntil(worker, (a) => a.body.backend?.reasons.some((r) => r.startsWith('gates: reach')) === true, 90_000, duringOutage);
    expect(outage.status).toBe(200);
    expect(outage.body).toMatchObject({ ready: true, reasons: [], backend: { healthy: false } });
    expect(outage.body.backend!.reasons.some((r) => /^gates: reach: /.test(r)), JSON.stringify(outage.body)).toBe(true);
    await expect.poll(() => gateProven(worker, 'reach'), { timeout: 30_000, interval: 500 }).toBe(0);
    // Still ready after the metric said so, and every answer through the outage was 200.
    expect((await readyzUntil(worker, () => true, 10_000, duringOutage)).status).toBe(200);
    expect(duringOutage.map((a) => a.status)).toEqual(duringOutage.map(() => 200));
    expect(proxy.requests.some((r) => r.fault === 'reset')).toBe(true);

    proxy.clear();
    expect((await readyzUntil(worker, backendHealthy, 90_000)).body).toEqual(HEALTHY);

    await stopServer(temporal.process);
    const down = await readyzUntil(worker, (a) => a.status === 503, 30_000);
    expect(down.body.ready).toBe(false);
    // Temporal is the one condition not met: the worker still runs, and its gates stay proven.
    expect(down.body.reasons).toEqual([expect.stringMatching(/^temporal: no answer over the worker's connection: /)]);
    expect(down.body.backend).toEqual({ healthy: true, reasons: [] });
    expect(await probe(worker, '/livez')).toEqual({ status: 200, body: { alive: true, reasons: [] } });

    temporal = await launch();
    expect((await readyzUntil(worker, ready, 60_000)).body).toEqual(HEALTHY);
    expect(worker.child.exitCode).toBeNull();
  }, 400_000);
});

describe('readiness does not follow the gates', () => {
  let ns: TestNamespace;
  let worker: WorkerCommand;
  const probeRuntime = uniqueName('health-probe');

  beforeAll(async () => {
    ns = await freshNamespace('health-gates');
    // The probe runs on a TrainingRuntime of the namespace's own, which does not exist yet.
    const config = writeWorkerConfig(ns.name, uniqueName('health-gates'), [`probeRuntime: TrainingRuntime/${probeRuntime}`]);
    worker = await spawnWorkerCommand({ config, env: bundle });
  }, 60_000);
  afterAll(async () => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    await ns?.dispose();
  });

  it('stays ready while the start gate is unproven (its probe runtime missing), the backend naming it and why, and reports the backend healthy once the preflight proves it', async () => {
    const unproven = await readyzUntil(worker, (a) => a.body.backend?.reasons.some((r) => r.startsWith('gates: start not proven')) === true, 90_000);
    expect(unproven.status).toBe(200);
    expect(unproven.body).toEqual({
      ready: true,
      reasons: [],
      backend: {
        healthy: false,
        reasons: [expect.stringMatching(/^gates: start not proven at /), `gates: start: runtime TrainingRuntime/${probeRuntime} does not exist`],
      },
    });
    expect(await gateProven(worker, 'start')).toBe(0);
    expect(await probe(worker, '/livez')).toEqual({ status: 200, body: { alive: true, reasons: [] } });

    // The preflight runs again 5 s after an unproven one, doubling: the next one proves the gate.
    await kubeConfig()
      .makeApiClient(CustomObjectsApi)
      .createNamespacedCustomObject({
        group: Trainer.group,
        version: Trainer.version,
        namespace: ns.name,
        plural: Trainer.trainingRuntimePlural,
        body: await trainingRuntime(probeRuntime, 'dispatch-probe'),
      });
    expect((await readyzUntil(worker, backendHealthy, 90_000)).body).toEqual(HEALTHY);
    expect(await gateProven(worker, 'start')).toBe(1);
  }, 200_000);
});
