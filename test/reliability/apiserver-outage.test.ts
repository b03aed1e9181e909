// API server outage (docs/reliability.md): on a cluster of this file's own, kube-apiserver is stopped
// while a Start is at each step, and started again (same etcd, port, certificates and flags) after 5 s,
// then after longer than timeouts.call. The worker reaches the API server through the fault proxy,
// which holds the step's first request until the server is down, then answers 502 for it (its
// upstream refuses connections) until it is back. A short outage: the Start completes. A long one:
// the Start ends with the type docs/contract.md §6 gives the step, and leaves nothing, except at step 6,
// whose ErrOutcomeUnknown keeps the runtime copy, unowned, for the retried Start of the attempt
// (docs/start.md step 5), which then completes and owns it.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverBinaries } from '../../dev/harness/binaries.js';
import { adminAccess, startCluster, type LocalCluster } from '../../dev/harness/cluster.js';
import { kubeConfigFor } from '../../dev/harness/kube-access.js';
import { applySamples } from '../../dev/harness/samples.js';
import { crdDirs } from '../../dev/harness/stack.js';
import { Kueue, Trainer } from '../../src/model/constants.js';
import type { ErrorType } from '../../src/model/errors.js';
import { parseGoDuration, toMillis } from '../../src/model/duration.js';
import { createKubeClients } from '../../src/kube/clients.js';
import { trainJobName } from '../../src/core/start/names.js';
import { startRequest } from '../support/requests.js';
import { stackInfo } from '../integration/support/context.js';
import { FakeKueue } from '../integration/support/fake-kueue.js';
import type { FaultRule } from '../integration/support/fault-proxy.js';
import { failedCallDigest } from './support/call-digest.js';
import { describeObject, unexpectedObjects } from './support/leak-audit.js';
import {
  eventually,
  objectsOfJob,
  reliabilityLab,
  runFigure,
  type Lab,
  type LabConfig,
} from './support/lab.js';
import { describeOutcome, expectJobObjects, failureOf, outcomeOf } from './support/outcome.js';

let cluster: LocalCluster;
const stateDir = mkdtempSync(join(tmpdir(), `dispatch-kubeflow-${process.pid}-outage-`));

beforeAll(async () => {
  const logDir = join(stackInfo().logDir, 'apiserver-outage');
  mkdirSync(logDir, { recursive: true });
  const t0 = Date.now();
  cluster = await startCluster({
    binaries: await serverBinaries({ build: false }),
    stateDir,
    logDir,
    namespace: 'dispatch',
    crdDirs: crdDirs(),
    // Its Kueue-mode Starts are served by the stand-in, which cannot share a cluster with the real Kueue.
    kueue: false,
    lifeline: process.pid,
  });
  await applySamples(adminAccess(cluster.info));
  runFigure('apiserver outage: own cluster up', { ms: Date.now() - t0, server: cluster.info.server, logDir });
}, 300_000);
afterAll(async () => {
  // Nothing labelled managed-by=dispatch may remain anywhere on this cluster once the file's own audit removed what it expected.
  const kube = createKubeClients(kubeConfigFor(adminAccess(cluster.info)));
  const left = cluster ? await unexpectedObjects(kube, [], { settleMs: 30_000 }) : [];
  await cluster?.stop();
  rmSync(stateDir, { recursive: true, force: true });
  expect(left.map(describeObject)).toEqual([]);
}, 120_000);

/** CallBound 20 s: a 5 s outage fits in it; a 23 s one does not, and the compensation after it still fits in the next 20 s. */
const CALL_MS = 20_000;
/** The CallBound of the short outages (see where it is used). */
const SHORT_OUTAGE_CALL = '150s';
const PLAIN: LabConfig = { timeouts: { call: '20s', workload: '60s' } };
const KUEUE: LabConfig = {
  ...PLAIN,
  mode: 'kueue',
  kueue: { queue: 'user-queue', admissionCheck: 'dispatch' },
};

interface Step {
  step: number;
  config: LabConfig;
  /** The step's first request, held until the API server is down. */
  hold: (lab: Lab, name: string) => FaultRule;
  /** What the Start ends with after an outage longer than CallBound. */
  long: 'started' | ErrorType;
}

const STEPS: Step[] = [
  {
    step: 2,
    config: PLAIN,
    hold: () => ({
      method: 'GET',
      path: `/apis/${Trainer.group}/${Trainer.version}/${Trainer.clusterTrainingRuntimePlural}/dispatch-kind`,
      action: 'hang',
    }),
    long: 'ErrUnreachable',
  },
  {
    step: 5,
    config: PLAIN,
    hold: (lab) => ({ method: 'POST', path: `${lab.base}/${Trainer.trainingRuntimePlural}`, action: 'hang' }),
    long: 'ErrUnreachable',
  },
  {
    step: 6,
    config: PLAIN,
    hold: (lab) => ({ method: 'POST', path: `${lab.base}/${Trainer.trainJobPlural}`, action: 'hang' }),
    long: 'ErrOutcomeUnknown',
  },
  {
    step: 7,
    config: PLAIN,
    hold: (lab, name) => ({
      method: 'PATCH',
      path: `${lab.base}/${Trainer.trainingRuntimePlural}/${name}`,
      action: 'hang',
    }),
    long: 'ErrRejected',
  },
  {
    step: 8,
    config: PLAIN,
    hold: (lab, name) => ({
      method: 'GET',
      path: `${lab.base}/${Trainer.trainJobPlural}/${name}`,
      action: 'hang',
    }),
    long: 'ErrRejected',
  },
  {
    // The Workload wait rides out an outage shorter than timeouts.workload (60 s) whatever CallBound is.
    step: 9,
    config: KUEUE,
    hold: (lab) => ({
      method: 'GET',
      path: new RegExp(`^/apis/${Kueue.group}/v1beta2/namespaces/${lab.ns.name}/${Kueue.workloadPlural}$`),
      action: 'hang',
    }),
    long: 'started',
  },
];

/** How long the garbage collector may take to collect an owned copy after an API server restart. */
const GC_SETTLE_MS = 180_000;

/** SIGTERM, then SIGKILL after a second: kube-apiserver's graceful shutdown otherwise outlasts a short outage. */
const STOP_GRACE_MS = 1_000;

/**
 * Waits until the restarted API server serves the custom resources too: /readyz answers before the
 * watch cache of each CRD is filled, and until then their requests get 429 "storage is
 * (re)initializing" (which the worker takes as unanswered and retries).
 */
async function servesTrainerObjects(lab: Lab): Promise<void> {
  const lists = [
    { group: Trainer.group, version: Trainer.version, plural: Trainer.trainJobPlural },
    { group: Trainer.group, version: Trainer.version, plural: Trainer.trainingRuntimePlural },
    { group: Kueue.group, version: 'v1beta2', plural: Kueue.workloadPlural },
  ];
  const serving = () =>
    Promise.all(
      lists.map((at) => lab.kube.custom.listNamespacedCustomObject({ ...at, namespace: lab.ns.name })),
    ).then(
      () => true,
      () => false,
    );
  expect(
    await eventually(serving, 60_000, 100),
    'the restarted API server serves the Trainer and Kueue objects',
  ).toBe(true);
}

const OUTAGES = [
  { name: '5 s', ms: 5_000 },
  { name: 'longer than timeouts.call', ms: CALL_MS + 3_000 },
];

describe('API server outage mid-Start', () => {
  const lab = reliabilityLab('outage', { cluster: () => cluster.info });

  for (const outage of OUTAGES) {
    for (const s of STEPS) {
      const expected = outage.ms < CALL_MS ? 'started' : s.long;
      it(`step ${s.step}, outage ${outage.name}: ${expected === 'started' ? 'the Start completes' : `${expected} at step ${s.step}`}`, async () => {
        // A short outage is given a CallBound of 150 s: the real Trainer's informers reconnect with
        // client-go's backoff, which grows over the outages of this file's earlier tests, and its
        // webhook went on denying TrainJobs on copies made meanwhile (step 6's runtime-lag retry
        // rides that out within CallBound): for up to 45 s after the API server was back at first,
        // then 77 s of denials in one run (of the next test's step 6, within a CallBound of 90 s);
        // with 20 s, the outage and that lag did not fit.
        const config = lab.config(expected === 'started' ? { ...s.config, timeouts: { ...s.config.timeouts, call: SHORT_OUTAGE_CALL } } : s.config);
        const kueue =
          config.mode === 'kueue' ? await FakeKueue.start({ kubeConfig: lab.kubeConfig, config }) : undefined;
        const worker = await lab.worker(config, `outage-${s.step}-${outage.ms}`, { requestTimeoutMs: 2_000 });
        try {
          const request = startRequest();
          const name = trainJobName(request.job, request.submission);
          const fault = lab.proxy.inject(s.hold(lab, name));
          const client = lab.client(config);
          const handle = await client.submit(request);
          const t0 = Date.now();
          // The Start may spend up to its CallBound at an earlier step: after the previous test's
          // outage the real Trainer's webhook can deny step 6's create for tens of seconds (403, retried).
          const reachMs = toMillis(parseGoDuration(config.timeouts.call)!) + 30_000;
          expect(await eventually(() => fault.hits > 0, reachMs, 20), `the Start reached step ${s.step}`).toBe(
            true,
          );

          const tDown = Date.now();
          await cluster.apiServer.stop(STOP_GRACE_MS);
          const stopMs = Date.now() - tDown;
          lab.proxy.clear();
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, outage.ms - stopMs)));
          const tUp = Date.now();
          await cluster.apiServer.start();
          const readyMs = Date.now() - tUp;
          await servesTrainerObjects(lab);
          const unavailableMs = Date.now() - tDown;
          const restartMs = Date.now() - tUp;

          const outcome = await outcomeOf(handle, t0);
          const figures: Record<string, unknown> = {
            step: s.step,
            outage: outage.name,
            stopMs,
            readyMs,
            restartMs,
            unavailableMs,
            outcome: describeOutcome(outcome).slice(0, 200),
            endedAfterMs: outcome.ms,
          };
          if (expected === 'started') {
            // A failure here is read on another machine from the run's output alone: say what the calls met.
            const why = outcome.ok ? '' : `${describeOutcome(outcome)}\n${JSON.stringify(figures)}\nthe worker's refused and unanswered calls:\n${failedCallDigest(worker.logFile)}`;
            expect(outcome.ok, why).toBe(true);
            await expectJobObjects(lab.kube, lab.ns.name, request.job, outcome);
            lab.ledger.expectStarted(name);
          } else if (s.step === 6) {
            // Seed 000 step 6: unanswered is ErrOutcomeUnknown; the copy is kept for the retried Start.
            expect(failureOf(outcome)).toMatchObject({
              type: expected,
              step: 6,
              ref: { namespace: lab.ns.name, name },
            });
            const left = await objectsOfJob(lab.kube, lab.ns.name, request.job);
            expect(left.trainJobs).toHaveLength(0);
            expect(left.copies.map((c) => c.metadata?.ownerReferences ?? [])).toEqual([[]]);
            const retried = await outcomeOf(await client.submit(request));
            expect(retried.ok, describeOutcome(retried)).toBe(true);
            await expectJobObjects(lab.kube, lab.ns.name, request.job, retried);
            lab.ledger.expectStarted(name);
            figures.retriedStart = describeOutcome(retried);
          } else {
            expect(failureOf(outcome)).toMatchObject({ type: expected, step: s.step });
            if (s.step >= 7) expect(failureOf(outcome).ref).toMatchObject({ namespace: lab.ns.name, name });
            // Nothing is left: steps 2 and 5 created nothing, the compensation of 7 and 8 stopped what
            // was. After step 8 the copy is owned, so it goes with the garbage collector, which after an
            // API server restart takes its time (its informers resync, discovery is rescanned every 30 s).
            const { settledMs } = await expectJobObjects(
              lab.kube,
              lab.ns.name,
              request.job,
              outcome,
              GC_SETTLE_MS,
            );
            figures.settledMs = settledMs;
          }
          lab.figure('apiserver outage', figures);
        } finally {
          lab.proxy.clear();
          if (!cluster.apiServer.running) {
            await cluster.apiServer.start();
            await servesTrainerObjects(lab);
          }
          await worker.stop();
          await kueue?.stop();
        }
      }, 420_000);
    }
  }
});
