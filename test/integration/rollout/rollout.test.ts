// A rollout from build N to build N+1 of a versioned worker (docs/versioning.md, docs/contract.md
// §10), on the real stack: a dev Temporal server of its own (the versioning test settings,
// VERSIONING_TEST_DYNAMIC_CONFIG), the run's cluster behind a fault proxy that slows each of
// Start's calls, so that at the switch Starts are at every step and Opens in flight, while WATCHES
// Watches wait. Build N+1 changes Start and Open with no patch (next-build-workflows.ts). Then:
// every workflow answers right, no workflow task fails, each Start and Open ran all its tasks on
// the build that began it, the Watches move to N+1 and answer there, build N drains and is retired
// by the documented commands. The control shows the same rollout failing with Start and Open
// unpinned. DISPATCH_KUBEFLOW_ROLLOUT_WATCHES sets the Watches (npm test 40; `npm run
// test:rollout` 1,000); the figures are printed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts, stopServer } from '../../../dev/harness/process.js';
import { startDevTemporal, VERSIONING_TEST_DYNAMIC_CONFIG, type DevTemporal } from '../../../dev/harness/temporal.js';
import { directStarter } from '../../../bench/direct.js';
import { SearchAttributes, WorkflowTypes, startWorkflowId } from '../../../src/contract/names.js';
import { trainJobName } from '../../../src/core/start/names.js';
import { Trainer } from '../../../src/model/constants.js';
import type { Outcome, TrainJobRef } from '../../../src/model/operations.js';
import type { StartRequest } from '../../../src/model/request.js';
import { startRequest } from '../../support/requests.js';
import { workflowBundle, workflowBundleOf } from '../../support/workflow-bundle.js';
import { stackInfo } from '../support/context.js';
import { startDispatch, writeKubeconfig, type DispatchHarness } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshNamespace, kubeAccess, uniqueName, type TestNamespace } from '../support/kube.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { chainBuilds, deploymentCommand, eachLimited, historyBuilds, untilAccepted } from './rollout-support.js';

const WATCHES = Number(process.env.DISPATCH_KUBEFLOW_ROLLOUT_WATCHES ?? 40);
/** Each slowed call's delay: a Start spends about this long in each of steps 2, 5, 6, 7 and 8. */
const STEP_DELAY_MS = 2_500;
const STARTS_BEFORE = 10;
const STARTS_AFTER = 4;
const OPENS = 4;

let temporal: DevTemporal;
let ns: TestNamespace;
let proxy: FaultProxy;
const harnesses: DispatchHarness[] = [];

beforeAll(async () => {
  const [port, uiPort] = (await freePorts(2)) as [number, number];
  temporal = await startDevTemporal({
    binary: stackInfo().temporal.cli,
    logDir: mkdtempSync(join(tmpdir(), 'dk-rollout-')),
    port,
    uiPort,
    lifeline: process.pid,
    dynamicConfig: VERSIONING_TEST_DYNAMIC_CONFIG,
  });
  [ns, proxy] = await Promise.all([freshNamespace('rollout'), startFaultProxy()]);
}, 120_000);
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close().catch(() => undefined)));
  await proxy?.close();
  await ns?.dispose();
  if (temporal) await stopServer(temporal.process);
});

async function build(deploymentName: string, buildId: string, taskQueue: string, bundle: { code: string }): Promise<DispatchHarness> {
  const h = await startDispatch({
    namespace: ns.name,
    access: proxy.accessFor({ ...proxy.accessFor(), namespace: ns.name }),
    config: { timeouts: { call: '60s', workload: '5s' } },
    temporalAddress: temporal.address,
    taskQueue,
    workflowBundle: bundle,
    deploymentVersion: { deploymentName, buildId },
  });
  harnesses.push(h);
  return h;
}

/** docs/versioning.md: `temporal worker deployment set-current-version`, once the build's pollers are known. */
const setCurrent = (deploymentName: string, buildId: string) =>
  untilAccepted(`set-current-version ${buildId}`, 60_000, () =>
    deploymentCommand(temporal.address, 'set-current-version', '--deployment-name', deploymentName, '--build-id', buildId, '--yes'),
  );

/** Start's calls (steps 2, 5, 6, 7, 8) and Open's, each slowed by STEP_DELAY_MS. */
function slowStartsAndOpens(): void {
  const base = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns.name}`;
  const delay = (method: string, path: RegExp) => proxy.inject({ method, path, times: Infinity, action: 'delay', delayMs: STEP_DELAY_MS });
  delay('GET', new RegExp(`^/apis/${Trainer.group}/${Trainer.version}/clustertrainingruntimes/[^/]+$`));
  delay('POST', new RegExp(`^${base}/trainingruntimes$`));
  delay('POST', new RegExp(`^${base}/trainjobs$`));
  delay('PATCH', new RegExp(`^${base}/trainingruntimes/[^/]+$`));
  delay('GET', new RegExp(`^${base}/trainjobs/[^/]+$`));
  delay('PATCH', new RegExp(`^${base}/trainjobs/[^/]+$`));
}

/**
 * A TrainJob made directly, made again when it ends ErrUnreachable because Trainer's webhook has
 * not seen its runtime copy yet (docs/contract.md §6a: a caller retries such a Start; at a
 * thousand creates the webhook's cache lags). Each try of one request reuses its copy.
 */
async function madeDirectly(direct: (request: StartRequest) => Promise<string>, request: StartRequest): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await direct(request);
    } catch (error) {
      if (attempt >= 10 || !String((error as Error).message).includes('retry the Start')) throw error;
      await pause(1_000);
    }
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const startIdOf = (request: StartRequest) => startWorkflowId(ns.name, trainJobName(request.job, request.submission), request.attempt);

describe('a rollout from build N to build N+1 with a workflow change that has no patch', () => {
  it(`keeps Starts and operations on the build that began them, moves ${WATCHES} waiting Watches to N+1, answers every one right, and drains and retires build N`, async () => {
    const deployment = uniqueName('dk');
    const taskQueue = uniqueTaskQueue('rollout');
    const [bundleN, bundleN1] = await Promise.all([workflowBundle(), workflowBundleOf(new URL('./next-build-workflows.ts', import.meta.url).pathname)]);
    const n = await build(deployment, 'build-n', taskQueue, bundleN);
    await setCurrent(deployment, 'build-n');
    const temporalClient = n.env.client;

    // The Watches: TrainJobs as Start makes them (made directly: bench/direct.ts), each watched.
    const direct = directStarter({ ...n.config }, writeKubeconfig(kubeAccess('admin', ns.name)));
    const made = Date.now();
    const refs: TrainJobRef[] = await eachLimited(
      Array.from({ length: WATCHES }, () => startRequest()),
      12,
      async (request) => ({ namespace: ns.name, name: trainJobName(request.job, request.submission), uid: await madeDirectly(direct, request) }),
    );
    // The Watches as begun: their results follow each chain from its first run (a Watch asked for
    // again after it answered would be a new run, with a new answer).
    const watches = await eachLimited(refs, 24, (ref) => n.client.submitOperation('watch', ref));
    const watchQuery = `WorkflowType = '${WorkflowTypes.watch}' AND TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`;
    await untilAccepted('every Watch showing its phase', 15 * 60_000, async () => {
      const { count } = await temporalClient.workflow.count(`${watchQuery} AND ${SearchAttributes.phase} = 'Gated'`);
      if (count !== WATCHES) throw new Error(`${count} of ${WATCHES}`);
    });
    const watchesReadyMs = Date.now() - made;

    // TrainJobs to Open during the switch, started before the calls are slowed.
    const toOpen = await Promise.all(Array.from({ length: OPENS }, () => n.client.startTrainJob(startRequest())));

    // Starts begun one a second, each about 5 × STEP_DELAY_MS long, and the Opens: in flight at the switch.
    slowStartsAndOpens();
    const before: { request: StartRequest; result: Promise<unknown> }[] = [];
    const opens: Promise<unknown>[] = [];
    for (let i = 0; i < STARTS_BEFORE; i++) {
      const request = startRequest();
      before.push({ request, result: n.client.startTrainJob(request) });
      if (i < OPENS) opens.push(n.client.open({ namespace: ns.name, name: toOpen[i]!.name, uid: toOpen[i]!.uid }));
      await pause(1_000);
    }
    const n1 = await build(deployment, 'build-n1', taskQueue, bundleN1);
    await setCurrent(deployment, 'build-n1');
    const switchedAt = Date.now();
    // Where each Start was at the switch (its DispatchStep), as the Temporal UI shows it.
    const stepsAtSwitch = await Promise.all(
      before.map(async ({ request }) => {
        const described = await temporalClient.workflow.getHandle(startIdOf(request)).describe();
        return described.status.name === 'RUNNING' ? String(described.typedSearchAttributes.get({ name: SearchAttributes.step, type: 'KEYWORD' } as never) ?? '?') : 'closed';
      }),
    );
    const after = Array.from({ length: STARTS_AFTER }, () => startRequest()).map((request) => ({ request, result: n1.client.startTrainJob(request) }));

    // Every Start and Open answers, each on its own build, with no workflow task failed.
    const results = await Promise.allSettled([...before, ...after].map((s) => s.result));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect((await Promise.allSettled(opens)).filter((r) => r.status === 'rejected')).toEqual([]);
    proxy.clear();
    const startedBefore = await Promise.all(before.map((s) => historyBuilds(temporalClient, startIdOf(s.request))));
    const startedAfter = await Promise.all(after.map((s) => historyBuilds(temporalClient, startIdOf(s.request))));
    for (const h of startedBefore) expect(h).toMatchObject({ workflowTaskFailures: [], timerFirst: false, builds: h.builds.map(() => 'build-n') });
    for (const h of startedAfter) expect(h).toMatchObject({ workflowTaskFailures: [], timerFirst: true, builds: h.builds.map(() => 'build-n1') });
    const openIds = toOpen.slice(0, OPENS).map((r) => `open/${ns.name}/${r.name}/${r.uid}`);
    for (const id of openIds) {
      const h = await historyBuilds(temporalClient, id);
      expect(h).toMatchObject({ workflowTaskFailures: [], timerFirst: false, builds: h.builds.map(() => 'build-n') });
    }

    // Build N drains: `temporal worker deployment describe-version` says so once its pinned runs ended.
    const drained = await untilAccepted('build N drained', 120_000, async () => {
      const described = (await deploymentCommand(temporal.address, 'describe-version', '--deployment-name', deployment, '--build-id', 'build-n')) as {
        drainageInfo?: { drainageStatus?: string };
      };
      if (described.drainageInfo?.drainageStatus !== 'drained') throw new Error(JSON.stringify(described.drainageInfo));
      return Date.now();
    });

    // The Watches end (their TrainJobs deleted): each answers Absent, on build N+1.
    const deleted = Date.now();
    await eachLimited(refs, 16, (ref) =>
      n.kube.custom.deleteNamespacedCustomObject({ group: Trainer.group, version: Trainer.version, namespace: ns.name, plural: Trainer.trainJobPlural, name: ref.name }),
    );
    const outcomes = (await eachLimited(watches, 32, (handle) => handle.result())) as Outcome[];
    const watchesAnsweredMs = Date.now() - deleted;
    expect(outcomes.filter((o, i) => o.phase !== 'Absent' || o.ref.uid !== refs[i]!.uid)).toEqual([]);
    // Each Watch's chain: its first run began on build N, its last run ended on N+1 (a Watch may
    // continue as new: the run after moves with it), no workflow task failed in either.
    const chains = await eachLimited(watches, 16, (handle) => chainBuilds(temporalClient, handle.workflowId, handle.firstExecutionRunId));
    expect(chains.flatMap((c) => [...c.first.workflowTaskFailures, ...c.last.workflowTaskFailures])).toEqual([]);
    const moved = chains.filter((c) => c.first.builds[0] === 'build-n' && c.last.builds.at(-1) === 'build-n1').length;
    const continuedAsNew = chains.filter((c) => c.continuedAsNew).length;
    const refusedForNewEvents = chains.reduce((sum, c) => sum + c.last.refusedForNewEvents, 0);
    const paths = new Map<string, number>();
    for (const c of chains) {
      const path = `${c.first.builds[0] ?? 'none'} -> ${c.last.builds.at(-1) ?? 'none'}`;
      paths.set(path, (paths.get(path) ?? 0) + 1);
    }
    expect(moved, JSON.stringify(Object.fromEntries(paths))).toBe(WATCHES);

    // Retire build N: its workers stop, then `temporal worker deployment delete-version`.
    await n.close();
    harnesses.splice(harnesses.indexOf(n), 1);
    await untilAccepted('delete-version build-n', 60_000, () =>
      deploymentCommand(temporal.address, 'delete-version', '--deployment-name', deployment, '--build-id', 'build-n'),
    );
    const versions = JSON.stringify(await deploymentCommand(temporal.address, 'describe', '--name', deployment));
    expect(versions).not.toContain('"build-n"');
    expect(versions).toContain('build-n1');

    console.log(
      `[rollout] ${WATCHES} Watches waiting (ready in ${watchesReadyMs} ms); at the switch: Starts at steps ${JSON.stringify(stepsAtSwitch)}, ${OPENS} Opens in flight; ` +
        `${STARTS_BEFORE} Starts on build-n and ${STARTS_AFTER} on build-n1 answered, 0 workflow tasks failed; build-n drained ${drained - switchedAt} ms after the switch; ` +
        `${moved}/${WATCHES} Watches moved to build-n1 and answered Absent in ${watchesAnsweredMs} ms after their TrainJobs were deleted (${continuedAsNew} of them through a continue-as-new) ` +
        `(${refusedForNewEvents} Watch completions refused for wakes that came in during the task, and run again); build-n retired`,
    );
  }, 40 * 60_000);

  it('fails without pinning: a Start or Open of build N in flight at the switch meets N+1 code and its workflow task fails nondeterministic (the control)', async () => {
    const deployment = uniqueName('dk-unpinned');
    const taskQueue = uniqueTaskQueue('rollout-unpinned');
    const [bundleN, bundleN1] = await Promise.all([
      workflowBundleOf(new URL('./unpinned-workflows.ts', import.meta.url).pathname),
      workflowBundleOf(new URL('./next-build-workflows.ts', import.meta.url).pathname),
    ]);
    const n = await build(deployment, 'build-n', taskQueue, bundleN);
    await setCurrent(deployment, 'build-n');
    slowStartsAndOpens();
    const requests = Array.from({ length: 3 }, () => startRequest());
    for (const request of requests) {
      void n.client.submit(request);
      await pause(1_000);
    }
    await build(deployment, 'build-n1', taskQueue, bundleN1);
    await setCurrent(deployment, 'build-n1');
    const failures = await untilAccepted('a workflow task failed on build N+1', 120_000, async () => {
      const all = (await Promise.all(requests.map((r) => historyBuilds(n.env.client, startIdOf(r))))).flatMap((h) => h.workflowTaskFailures);
      if (all.length === 0) throw new Error('none yet');
      return all;
    });
    expect(failures.join('\n')).toMatch(/NON_DETERMINISTIC|[Nn]ondetermin/);
    proxy.clear();
    await Promise.all(requests.map((r) => n.env.client.workflow.getHandle(startIdOf(r)).terminate('the control is done').catch(() => undefined)));
  }, 10 * 60_000);
});
