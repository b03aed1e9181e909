// GET /readyz and GET /livez of `dispatch-kubeflow worker` (docs/observability.md, Health), on the
// real servers: not ready before its first preflight; ready once it polls, Temporal answers and the
// gates are proven; not ready while its Temporal is down (alive all along) and ready again when it
// is back; not ready while a gate is unproven, naming it, and ready once the cause is gone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { startDevTemporal, type DevTemporal } from '../../../dev/harness/temporal.js';
import { freePorts, stopServer } from '../../../dev/harness/process.js';
import { stackInfo } from '../support/context.js';
import { workflowBundle } from '../support/dispatch.js';
import { freshNamespace, kubeConfig, uniqueName, type TestNamespace } from '../support/kube.js';
import { trainingRuntime } from '../support/trainer.js';
import { spawnWorkerCommand, writeWorkerConfig, type WorkerCommand } from '../support/worker-command.js';
import { CustomObjectsApi } from '@kubernetes/client-node';

interface Answer {
  status: number;
  body: { ready?: boolean; alive?: boolean; reasons: string[] };
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

/** Polls /readyz until `until` holds; the answers seen meanwhile, and the worker's log, in the message. */
async function readyzUntil(worker: WorkerCommand, until: (answer: Answer) => boolean, timeoutMs: number): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  const seen = new Set<string>();
  for (;;) {
    const answer = await probe(worker, '/readyz');
    if (answer && until(answer)) return answer;
    if (answer) seen.add(JSON.stringify(answer));
    if (Date.now() > deadline || worker.child.exitCode !== null)
      throw new Error(`/readyz never met the condition; answers seen: ${[...seen].join(' ')}\nworker output:\n${worker.output().slice(-4_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const ready = (answer: Answer) => answer.status === 200 && answer.body.ready === true;

beforeAll(async () => {
  // One prebuilt bundle for both workers: no webpack in each process.
  const file = join(dir, 'workflow-bundle.js');
  writeFileSync(file, (await workflowBundle()).code);
  bundle = { DISPATCH_WORKFLOW_BUNDLE: file };
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readiness follows Temporal', () => {
  let temporal: DevTemporal;
  let ports: [number, number];
  let ns: TestNamespace;
  let worker: WorkerCommand;
  // A Temporal dev server of this file's own, keeping its state in a file, so that it can be
  // stopped and started again on the same port.
  const launch = () =>
    startDevTemporal({ binary: stackInfo().temporal.cli, logDir: dir, port: ports[0], uiPort: ports[1], dbFile: join(dir, 'temporal.db'), lifeline: process.pid });

  beforeAll(async () => {
    ports = (await freePorts(2)) as [number, number];
    temporal = await launch();
    ns = await freshNamespace('health');
    worker = await spawnWorkerCommand({ config: writeWorkerConfig(ns.name, uniqueName('health')), temporalAddress: temporal.address, env: bundle });
  }, 120_000);
  afterAll(async () => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    if (temporal) await stopServer(temporal.process);
    await ns?.dispose();
  });

  it('is not ready before its first preflight, ready once the gates are proven, not ready while Temporal is down (alive all along), and ready again once it is back', async () => {
    const first = await readyzUntil(worker, () => true, 60_000);
    expect(first.status).toBe(503);
    expect(first.body.ready).toBe(false);

    const up = await readyzUntil(worker, ready, 90_000);
    expect(up.body).toEqual({ ready: true, reasons: [] });

    await stopServer(temporal.process);
    const down = await readyzUntil(worker, (a) => a.status === 503, 30_000);
    expect(down.body.ready).toBe(false);
    // Temporal is the one condition not met: the worker still runs, and its gates stay proven.
    expect(down.body.reasons).toEqual([expect.stringMatching(/^temporal: no answer over the worker's connection: /)]);
    expect(await probe(worker, '/livez')).toEqual({ status: 200, body: { alive: true, reasons: [] } });

    temporal = await launch();
    expect((await readyzUntil(worker, ready, 60_000)).body).toEqual({ ready: true, reasons: [] });
    expect(worker.child.exitCode).toBeNull();
  }, 300_000);
});

describe('readiness follows the gates', () => {
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

  it('is not ready while the start gate is unproven, naming it and why, and ready once the preflight proves it', async () => {
    const unproven = await readyzUntil(worker, (a) => a.body.reasons.some((r) => r.startsWith('gates: start not proven')), 90_000);
    expect(unproven.status).toBe(503);
    expect(unproven.body.reasons).toEqual([
      expect.stringMatching(/^gates: start not proven at /),
      `gates: start: runtime TrainingRuntime/${probeRuntime} does not exist`,
    ]);
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
    expect((await readyzUntil(worker, ready, 90_000)).body).toEqual({ ready: true, reasons: [] });
  }, 200_000);
});
