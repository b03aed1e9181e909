// Temporal restart (docs/reliability.md): a Temporal dev server of this file's own, keeping its
// state in a SQLite file (--db-filename), is stopped mid-Start and started again on the same port
// and file; the worker process and the client ride it out, and the Start completes with one
// TrainJob and one owned copy. Stopped with SIGTERM at two points (a create in flight whose answer
// is held, a read held unsent), and once with SIGKILL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevTemporal, type DevTemporal } from '../../dev/harness/temporal.js';
import { freePorts, signalGroup, stopServer } from '../../dev/harness/process.js';
import { Trainer } from '../../src/model/constants.js';
import { DispatchError } from '../../src/model/errors.js';
import { trainJobName } from '../../src/core/start/names.js';
import { startRequest } from '../support/requests.js';
import type { FaultRule } from '../integration/support/fault-proxy.js';
import { stackInfo } from '../integration/support/context.js';
import { eventually, reliabilityLab, type Lab } from './support/lab.js';
import { expectJobObjects, outcomeOf, type Outcome } from './support/outcome.js';

let temporal: DevTemporal;
let ports: [number, number];
const dir = mkdtempSync(join(tmpdir(), 'dispatch-temporal-restart-'));
const dbFile = join(dir, 'temporal.db');

const launch = () =>
  startDevTemporal({
    binary: stackInfo().temporal.cli,
    logDir: dir,
    port: ports[0],
    uiPort: ports[1],
    dbFile,
    lifeline: process.pid,
  });

beforeAll(async () => {
  ports = (await freePorts(2)) as [number, number];
  temporal = await launch();
}, 120_000);
afterAll(async () => {
  if (temporal) await stopServer(temporal.process);
  rmSync(dir, { recursive: true, force: true });
});

/** The result, waiting out the client's connection errors while the server is down. */
async function resultAcrossRestarts(handle: WorkflowHandle, since: number): Promise<Outcome> {
  for (;;) {
    const outcome = await outcomeOf(handle, since);
    if (outcome.ok || outcome.error instanceof WorkflowFailedError || outcome.error instanceof DispatchError)
      return outcome;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

interface RestartPoint {
  where: string;
  hold: (lab: Lab, name: string) => FaultRule;
  signal: 'SIGTERM' | 'SIGKILL';
  downMs: number;
}

const POINTS: RestartPoint[] = [
  {
    where: 'stopped (SIGTERM) while the TrainJob create has landed and its answer is held',
    hold: (lab) => ({
      method: 'POST',
      path: `${lab.base}/${Trainer.trainJobPlural}`,
      action: 'hold-response',
    }),
    signal: 'SIGTERM',
    downMs: 5_000,
  },
  {
    where: 'stopped (SIGTERM) while the read-back is held unsent',
    hold: (lab, name) => ({
      method: 'GET',
      path: `${lab.base}/${Trainer.trainJobPlural}/${name}`,
      action: 'hang',
    }),
    signal: 'SIGTERM',
    downMs: 5_000,
  },
  {
    where: 'killed (SIGKILL) while the owner reference patch is held unsent',
    hold: (lab, name) => ({
      method: 'PATCH',
      path: `${lab.base}/${Trainer.trainingRuntimePlural}/${name}`,
      action: 'hang',
    }),
    signal: 'SIGKILL',
    downMs: 5_000,
  },
];

describe('Temporal restart mid-Start', () => {
  const lab = reliabilityLab('temporal-restart', { temporalAddress: () => temporal.address });

  for (const point of POINTS) {
    it(`the Start completes: Temporal ${point.where}`, async () => {
      const config = lab.config({ timeouts: { call: '40s', workload: '5s' } });
      const worker = await lab.worker(config, `restart-${point.signal}-${Date.now()}`, {
        requestTimeoutMs: 5_000,
      });
      const request = startRequest();
      const name = trainJobName(request.job, request.submission);
      const fault = lab.proxy.inject(point.hold(lab, name));
      const handle = await lab.client(config).submit(request);
      const t0 = Date.now();
      expect(await eventually(() => fault.hits > 0, 60_000, 20), 'the Start reached the held request').toBe(
        true,
      );

      const tStop = Date.now();
      if (point.signal === 'SIGKILL') {
        signalGroup(temporal.process.pid, 'SIGKILL');
        await temporal.process.exited;
      } else {
        await stopServer(temporal.process);
      }
      const stopMs = Date.now() - tStop;
      await new Promise((resolve) => setTimeout(resolve, point.downMs));
      lab.proxy.clear();
      const tStart = Date.now();
      temporal = await launch();
      const startMs = Date.now() - tStart;

      const outcome = await resultAcrossRestarts(handle, tStart);
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
      await expectJobObjects(lab.kube, lab.ns.name, request.job, outcome);
      lab.ledger.expectStarted(name);
      const events = (await handle.fetchHistory()).events ?? [];
      await worker.stop();
      lab.figure('temporal restart', {
        where: point.where,
        signal: point.signal,
        heldAfterMs: tStop - t0,
        stopMs,
        // From the stop signal until the restarted server answered.
        unavailableMs: tStart + startMs - tStop,
        restartReadyMs: startMs,
        completedAfterRestartMs: outcome.ms,
        historyEvents: events.length,
      });
    }, 300_000);
  }
});
