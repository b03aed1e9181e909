// `npm run histories:record -- --set <name>`: runs real Starts (and a ProbeBackend and a
// TrainJobCapabilities) on a local stack it starts itself, and saves each workflow's history to
// test/histories/<name>/<scenario>.json, in the JSON format `Worker.runReplayHistories` reads.
// The replay test (test/unit/replay/) replays every set with the current workflow code, so a
// workflow change that would break a running Start fails `npm test`. See docs/versioning.md.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { createKubeClients, loadKubeConfig, type KubeClients } from '../src/kube/clients.js';
import { DispatchKubeflowClient } from '../src/client/dispatch-client.js';
import { parseConfig } from '../src/config/load-config.js';
import { attemptToken, trainJobName } from '../src/core/start/names.js';
import { adminAccess } from '../dev/harness/cluster.js';
import { FaultProxy, type FaultRule, type ProxiedRequest } from '../dev/harness/fault-proxy.js';
import { kubeConfigFor, kubeconfigYaml, type KubeAccess } from '../dev/harness/kube-access.js';
import { devDir, repoRoot } from '../dev/harness/paths.js';
import { startTestStack } from '../dev/harness/stack.js';
import type { ConfigInput } from '../src/model/config.js';
import { Annotations, Trainer } from '../src/model/constants.js';
import { fromFailure } from '../src/model/error-failures.js';
import { type Operation, probeWorkflowId } from '../src/contract/names.js';
import type { TrainJobRef } from '../src/model/operations.js';
import type { StartRequest } from '../src/model/request.js';
import type { BackendGates } from '../src/model/results.js';
import { createDispatchWorker } from '../src/worker/dispatch-worker.js';
import { applyKueueSamples, KUEUE_SAMPLE_CHECK, KUEUE_SAMPLE_QUEUE } from '../dev/harness/samples.js';
import { TEMPORAL_DYNAMIC_CONFIG } from '../dev/harness/temporal.js';
import { runFor } from '../test/integration/support/run-for.js';
import { bendRankRestart } from '../test/integration/support/rule-reasons.js';
import type { Json, RuntimeDraft, RuntimeEdit } from '../test/integration/support/runtimes.js';
import { minimalTrainJob, sampleRuntime, trainingRuntime } from '../test/integration/support/trainer.js';
import { startRequest } from '../test/support/requests.js';
import { HISTORIES_DIR, manifestOf, setNames, type Manifest } from '../test/unit/replay/corpus.js';
import { scanPatchCalls, sourcesUnder } from '../test/unit/replay/patch-scan.js';
import { historyToJson } from '../test/unit/replay/history-json.js';
import {
  appendOnlyProblems,
  baselineHeader,
  hashesOf,
  isBaselineHeader,
  linesOf,
  parseSums,
  SUMS_FILE,
  sumsLine,
  sumsVersions,
  verifyCorpus,
} from '../test/unit/replay/history-sums.js';
import { assignNewSet } from '../test/unit/replay/builds.js';

const HELP = `Usage: npm run histories:record -- --set <name> [--note <text>] [--only <prefix,...>] [--group <name>] [--code <checkout>] [--baseline | --experiment]

Starts a local stack, runs every scenario, and writes test/histories/<name>/*.json plus its
manifest.json (with the full commit it was recorded from), appends the files' sha256 to
test/histories/SHA256SUMS, regenerates test/histories/README.md, and assigns the set to today's
code in test/histories/builds.json (the builds that replay it). docs/versioning.md has the
rules, checked here before any server starts:

  - the tree is clean: no change to a tracked file, no untracked file outside test/histories;
  - <name> is a new folder, named after every set there is (NN-what, sorted: SHA256SUMS is
    appended to in order); a set is never recorded again;
  - the sets there are match SHA256SUMS, whose git history has only ever gained lines.

--baseline   the one fresh baseline: test/histories holds no set and no SHA256SUMS (remove them
             in a commit first); SHA256SUMS restarts with "# baseline <date>". Refused once a
             baseline has been committed.
--experiment records from any tree into .dev/histories/<name>/ (git-ignored), and touches
             nothing in test/histories.
--only       the scenarios whose file name begins with one of these prefixes, e.g.
             open,hold,release,stop,watch for a set of the operations after Start.
--group      the scenarios of one group: real-kueue-and-paths (the Kueue-mode scenarios on the
             real Kueue, and the paths the earlier sets have no history of).
--code       the old branch of a patch: a clean git checkout (a worktree) of a commit from before
             it, whose src/ (workflows, activities, worker, configuration) serves the scenarios;
             the scenarios, the stack and the client stay this tree's. Only the scenarios that
             record an old branch (their \`before\` patch) are run, each refused unless that
             checkout's src/workflows has no call of its patch. The manifest's commit is that
             checkout's; its recorder, this tree's.

The stack runs the real Kueue; its Temporal suggests continuing as new after a few dozen events.
`;

/** Short timeouts so that every failure scenario ends in seconds. */
const CALL = '3s';
const NAMESPACE = 'dispatch';
const KUEUE_NAMESPACE = 'dispatch-kueue';
interface RuntimeName {
  kind: 'ClusterTrainingRuntime';
  name: string;
}
/** A copy of dispatch-kind with a podFailurePolicy Ignore rule, which only allowRankRestart accepts. */
const WAIVED_RUNTIME: RuntimeName = { kind: 'ClusterTrainingRuntime', name: 'dispatch-waived' };
/** A copy of dispatch-kind whose pods KWOK runs for ten minutes: a job that stays Running while a scenario works on it. */
const LONG_RUNTIME: RuntimeName = { kind: 'ClusterTrainingRuntime', name: 'dispatch-long' };
/**
 * Temporal suggests continuing as new once a history has this many events (the dev server's
 * default is thousands). Only WatchTrainJob acts on the suggestion, after an activity answered a
 * phase change: each adds 7 events, so the Watch scenarios that are not about it (three answers
 * at most) end within 28 events, and the continue-as-new one continues at its fourth answer.
 */
const SUGGEST_CONTINUE_AS_NEW_EVENTS = 32;
/** The group of scenarios recorded together as one set after the real-Kueue and new-path work: `--group`. */
const REAL_KUEUE_AND_PATHS = 'real-kueue-and-paths';
/** An AdmissionCheck no ClusterQueue lists: the real Kueue's Workload never carries it, so step 9 refuses. */
const UNLISTED_CHECK = 'dispatch-unlisted';
const PROVEN: BackendGates = {
  reach: true,
  write: true,
  start: true,
  reasons: [],
  checkedAt: '2026-01-01T00:00:00.000Z',
};

/** How the workflow ended; the scenario's expectation is checked before its history is kept. */
type Outcome = { ok: true } | { type: string; step: number } | { cancelled: true };

const describeOutcome = (o: Outcome) =>
  'ok' in o ? 'completed' : 'cancelled' in o ? 'cancelled' : `${o.type} at step ${o.step}`;

interface Workers {
  direct: DispatchKubeflowClient;
  proxied: DispatchKubeflowClient;
  /** Through the proxy too, CallBound 30 s and a 10 s request timeout: a request the proxy holds a while is still answered. */
  proxiedPatient: DispatchKubeflowClient;
  /** Kueue mode on the real Kueue, with dispatch's admission check controller running (as the product's worker does). */
  kueue: DispatchKubeflowClient;
  /** Kueue mode on the real Kueue, configured with an admission check the ClusterQueue does not list. */
  kueueUnlisted: DispatchKubeflowClient;
  lenient: DispatchKubeflowClient;
  unproven: DispatchKubeflowClient;
  /** Reach and write proven, the start gate not (a probe definitely refused). */
  startUnproven: DispatchKubeflowClient;
  proxy: FaultProxy;
  admin: KubeClients;
}

interface Scenario {
  /** File name without .json: what happened, readable in a directory listing. */
  file: string;
  what: string;
  expect: Outcome;
  /** The runtime the request names (default: the sample dispatch-kind). */
  runtime?: RuntimeName;
  /** A group `--group` selects, e.g. the scenarios of one planned set. */
  group?: string;
  /**
   * The id of the patch whose old branch this records: run only with `--code`, on a checkout of a
   * commit from before that patch (today's code takes the new branch, so the scenario's checks fail).
   */
  before?: string;
  /** Runs the workflow and returns its handle; the workflow has ended when it returns. */
  run(w: Workers, request: StartRequest): Promise<WorkflowHandle>;
}

const trainJobsPath = (ns: string) =>
  `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns}/${Trainer.trainJobPlural}`;
const runtimesPath = (ns: string) =>
  `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns}/${Trainer.trainingRuntimePlural}`;
/** A fault on every matching request until cleared. */
const always = (method: string, path: FaultRule['path'], action: FaultRule['action']): FaultRule => ({
  method,
  path,
  times: Infinity,
  action,
});
const nameOf = (r: StartRequest) => trainJobName(r.job, r.submission);

/** Submits and waits for the end, whatever it is. */
async function ended(client: DispatchKubeflowClient, request: StartRequest): Promise<WorkflowHandle> {
  const handle = await client.submit(request);
  await handle.result().catch(() => undefined);
  return handle;
}

/** Starts the request and answers the TrainJob's ref. */
async function startedRef(client: DispatchKubeflowClient, request: StartRequest): Promise<TrainJobRef> {
  const started = await client.startTrainJob(request);
  return { namespace: started.namespace, name: started.name, uid: started.uid };
}

/** Starts the request, opens its TrainJob, and answers the TrainJob's ref. */
async function openedRef(client: DispatchKubeflowClient, request: StartRequest): Promise<TrainJobRef> {
  const ref = await startedRef(client, request);
  await client.open(ref);
  return ref;
}

/** Runs one operation after Start to its end, whatever it is. */
async function operation(client: DispatchKubeflowClient, op: Operation, ref: TrainJobRef): Promise<WorkflowHandle> {
  const handle = await client.submitOperation(op, ref);
  await handle.result().catch(() => undefined);
  return handle;
}

/**
 * A scenario of one operation: Start the request on `pick`'s worker, take its TrainJob through
 * `before` (each operation to its answer), then run `op` to its end.
 */
const afterStart =
  (op: Operation, before: Operation[] = [], pick: (w: Workers) => DispatchKubeflowClient = (w) => w.direct) =>
  async (w: Workers, request: StartRequest): Promise<WorkflowHandle> => {
    const client = pick(w);
    const ref = await startedRef(client, request);
    for (const step of before) await (await client.submitOperation(step, ref)).result();
    return operation(client, op, ref);
  };

/**
 * A Start refused at step 1 by its start gate (reach and write proven), after a runtime copy of its
 * attempt with no owner was made (as a lost first workflow task leaves it); checks that the refusal
 * then `removed` the copy (patch gate-refusal-removes-unowned-copy) or `left` it (the code before).
 */
async function refusedWithUnownedCopy(w: Workers, r: StartRequest, copy: 'removed' | 'left'): Promise<WorkflowHandle> {
  const name = nameOf(r);
  const body = await trainingRuntime(name);
  body.metadata = { name, annotations: { [Annotations.attemptToken]: attemptToken(NAMESPACE, name, r.attempt) } };
  const runtimes = trainerAt(NAMESPACE, Trainer.trainingRuntimePlural);
  await w.admin.custom.createNamespacedCustomObject({ ...runtimes, body });
  const handle = await ended(w.startUnproven, r);
  const left = await w.admin.custom.getNamespacedCustomObject({ ...runtimes, name }).then(
    () => true,
    () => false,
  );
  if (left !== (copy === 'left')) throw new Error(`runtime copy ${NAMESPACE}/${name} is ${left ? 'still there' : 'gone'} after the refusal at step 1 (expected ${copy})`);
  return handle;
}

/** Runs a Start with faults on the proxy, cleared afterwards. */
async function withFaults(w: Workers, request: StartRequest, rules: FaultRule[]): Promise<WorkflowHandle> {
  for (const rule of rules) w.proxy.inject(rule);
  try {
    return await ended(w.proxied, request);
  } finally {
    w.proxy.clear();
  }
}

const SCENARIOS: Scenario[] = [
  {
    file: 'start-plain-success',
    what: 'plain mode, everything answers: steps 0-8, a suspended TrainJob',
    expect: { ok: true },
    run: (w, r) => ended(w.direct, r),
  },
  {
    file: 'start-kueue-success',
    what: "Kueue mode on the real Kueue: its webhook suspends the TrainJob and adds its runtime patch, its Workload carries dispatch's gate and lists the admission check, step 9 passes",
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    run: (w, r) => ended(w.kueue, r),
  },
  {
    file: 'start-waived-runtime-allowrankrestart',
    what: 'allowRankRestart: true and a runtime with a podFailurePolicy Ignore rule: started, with `weakened`',
    expect: { ok: true },
    runtime: WAIVED_RUNTIME,
    run: (w, r) => ended(w.lenient, r),
  },
  {
    file: 'start-step6-create-unanswered-then-adopted',
    what: "the TrainJob create lands but its answer is dropped; the retry's 409 carries our token and is adopted",
    expect: { ok: true },
    run: (w, r) =>
      withFaults(w, r, [
        { method: 'POST', path: trainJobsPath(NAMESPACE), times: 1, action: 'drop-response' },
      ]),
  },
  {
    file: 'start-refused-invalid-request',
    what: 'a request with a reserved env key and an empty command, started by name: ErrInvalid (JobSpec.Validate, step 4), before step 1',
    expect: { type: 'ErrInvalid', step: 4 },
    async run(w, r) {
      const bad = { ...r, spec: { ...r.spec, command: [], env: { DISPATCH_X: '1' } } };
      const handle = await w.direct.client.workflow.start('StartTrainJob', {
        taskQueue: w.direct.taskQueue,
        workflowId: `start/${NAMESPACE}/${nameOf(r)}/a${r.attempt}`,
        args: [bad],
      });
      await handle.result().catch(() => undefined);
      return handle;
    },
  },
  {
    file: 'start-step1-refused-gates-unproven',
    what: 'no preflight has proven the gates yet: ErrUnreachable at step 1, nothing created',
    expect: { type: 'ErrUnreachable', step: 1 },
    run: (w, r) => ended(w.unproven, r),
  },
  {
    file: 'start-step1-start-gate-unproven-copy-removed',
    what: "the start gate unproven, and a runtime copy of this attempt's with no owner (as a lost first workflow task leaves it): ErrUnsupported at step 1, the copy removed first (patch gate-refusal-removes-unowned-copy)",
    expect: { type: 'ErrUnsupported', step: 1 },
    run: (w, r) => refusedWithUnownedCopy(w, r, 'removed'),
  },
  {
    file: 'start-step5-unanswered',
    what: 'the runtime copy create answers 500 until CallBound: ErrUnreachable, nothing to compensate',
    expect: { type: 'ErrUnreachable', step: 5 },
    run: (w, r) => withFaults(w, r, [always('POST', runtimesPath(NAMESPACE), 'status-500')]),
  },
  {
    file: 'start-step6-unanswered-past-callbound',
    what: 'every TrainJob create is reset until CallBound: ErrOutcomeUnknown with the ref, the copy kept',
    expect: { type: 'ErrOutcomeUnknown', step: 6 },
    run: (w, r) => withFaults(w, r, [always('POST', trainJobsPath(NAMESPACE), 'reset')]),
  },
  {
    file: 'start-step6-refused-foreign-trainjob',
    what: 'a TrainJob of the same name without our attempt token exists: definite ErrRejected, the copy deleted by the activity',
    expect: { type: 'ErrRejected', step: 6 },
    async run(w, r) {
      const body = minimalTrainJob(nameOf(r));
      await w.admin.custom.createNamespacedCustomObject({
        ...trainerAt(NAMESPACE, Trainer.trainJobPlural),
        body,
      });
      return ended(w.direct, r);
    },
  },
  {
    file: 'start-step7-refused-stopped',
    what: 'setting the owner reference answers 500 until CallBound: ErrRejected, compensation stops the TrainJob and the copy',
    expect: { type: 'ErrRejected', step: 7 },
    run: (w, r) =>
      withFaults(w, r, [always('PATCH', `${runtimesPath(NAMESPACE)}/${nameOf(r)}`, 'status-500')]),
  },
  {
    file: 'start-step8-unanswered-stopped',
    what: 'the read-back hangs until CallBound: ErrRejected, compensation stops the TrainJob',
    expect: { type: 'ErrRejected', step: 8 },
    run: (w, r) => withFaults(w, r, [always('GET', `${trainJobsPath(NAMESPACE)}/${nameOf(r)}`, 'hang')]),
  },
  {
    file: 'start-step9-check-unlisted-stopped',
    what: "Kueue mode on the real Kueue, configured with an admission check the ClusterQueue does not list: the Workload never lists it within timeouts.workload, ErrRejected, compensation stops the TrainJob",
    expect: { type: 'ErrRejected', step: 9 },
    group: REAL_KUEUE_AND_PATHS,
    run: (w, r) => ended(w.kueueUnlisted, r),
  },
  {
    file: 'start-step7-refused-stop-failed-too',
    what: 'step 7 fails and every DELETE answers 500 too: ErrOutcomeUnknown naming both, the TrainJob left',
    expect: { type: 'ErrOutcomeUnknown', step: 7 },
    run: (w, r) =>
      withFaults(w, r, [
        always('PATCH', `${runtimesPath(NAMESPACE)}/${nameOf(r)}`, 'status-500'),
        always('DELETE', new RegExp(`/${nameOf(r)}$`), 'status-500'),
      ]),
  },
  {
    file: 'start-cancelled-at-step8-stopped',
    what: 'cancelled while the read-back hangs: compensation stops the TrainJob, the workflow ends cancelled',
    expect: { cancelled: true },
    async run(w, r) {
      w.proxy.inject(always('GET', `${trainJobsPath(NAMESPACE)}/${nameOf(r)}`, 'hang'));
      try {
        const handle = await w.proxied.submit(r);
        await until('step 8', async () => (await handle.query<{ step: number }>('progress')).step === 8);
        await handle.cancel();
        await handle.result().catch(() => undefined);
        return handle;
      } finally {
        w.proxy.clear();
      }
    },
  },
  {
    file: 'probe-backend-all-gates-proven',
    what: 'ProbeBackend: reach, write, and the probe Start on dispatch-probe, stopped',
    expect: { ok: true },
    async run(w) {
      await w.direct.probe();
      return w.direct.client.workflow.getHandle(probeWorkflowId(NAMESPACE));
    },
  },
  {
    file: 'capabilities-torch-runtime',
    what: 'TrainJobCapabilities on dispatch-torch: ProcsPerNode answered yes',
    expect: { ok: true },
    async run(w) {
      const spec = {
        procsPerNode: 8,
        extensions: { 'kubeflow/RuntimeRef': { kind: 'ClusterTrainingRuntime', name: 'dispatch-torch' } },
      };
      const handle = await w.direct.client.workflow.start('TrainJobCapabilities', {
        taskQueue: w.direct.taskQueue,
        workflowId: `capabilities/${NAMESPACE}/dispatch-torch`,
        args: [{ spec }],
      });
      await handle.result().catch(() => undefined);
      return handle;
    },
  },
  // The operations after Start (docs/contract.md §9), each on a TrainJob a Start made just before.
  {
    file: 'open-plain-running',
    what: 'OpenTrainJob, plain mode: read, one patch (spec.suspend false, testing UID and resourceVersion), read: Running',
    expect: { ok: true },
    run: afterStart('open'),
  },
  {
    file: 'hold-plain-running',
    what: 'HoldTrainJob on an opened plain TrainJob: spec.suspend true and the held annotation in one patch: Held',
    expect: { ok: true },
    run: afterStart('hold', ['open']),
  },
  {
    file: 'release-plain-held',
    what: 'ReleaseTrainJob on a held plain TrainJob: spec.suspend false, the held annotation removed: Running',
    expect: { ok: true },
    run: afterStart('release', ['hold']),
  },
  {
    file: 'release-refused-not-held',
    what: 'ReleaseTrainJob on a TrainJob never held: ErrRejected, nothing written',
    expect: { type: 'ErrRejected', step: 0 },
    run: afterStart('release'),
  },
  {
    file: 'open-refused-another-uid',
    what: 'OpenTrainJob with a UID that is not the TrainJob\'s: ErrRejected, nothing written',
    expect: { type: 'ErrRejected', step: 0 },
    run: async (w, r) => operation(w.direct, 'open', { ...(await startedRef(w.direct, r)), uid: '00000000-0000-4000-8000-000000000000' }),
  },
  {
    file: 'open-unanswered',
    what: 'OpenTrainJob while every read of the TrainJob answers 500 until CallBound: ErrUnreachable',
    expect: { type: 'ErrUnreachable', step: 0 },
    async run(w, r) {
      const ref = await startedRef(w.proxied, r);
      w.proxy.inject(always('GET', `${trainJobsPath(NAMESPACE)}/${ref.name}`, 'status-500'));
      try {
        return await operation(w.proxied, 'open', ref);
      } finally {
        w.proxy.clear();
      }
    },
  },
  {
    file: 'hold-kueue-workload-inactive',
    what: "HoldTrainJob in Kueue mode on the real Kueue: the Workload's spec.active false, then the held annotation (patch hold-deactivates-workload-first; before it, the other order): Held",
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    run: afterStart('hold', [], (w) => w.kueue),
  },
  {
    file: 'open-kueue-gate-removed',
    what: "OpenTrainJob in Kueue mode on the real Kueue: dispatch's gate out of admission-gated-by: Queued",
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    run: afterStart('open', [], (w) => w.kueue),
  },
  {
    file: 'stop-plain-deleted',
    what: 'StopTrainJob: delete by UID, Background propagation, read again: Absent',
    expect: { ok: true },
    run: afterStart('stop'),
  },
  {
    file: 'watch-plain-succeeded',
    what: 'WatchTrainJob on an opened plain TrainJob that KWOK runs to Complete: Succeeded, with the phases shown on the way',
    expect: { ok: true },
    run: afterStart('watch', ['open']),
  },
  {
    file: 'watch-absent-after-stop',
    what: 'WatchTrainJob on a stopped TrainJob: Absent',
    expect: { ok: true },
    run: afterStart('watch', ['stop']),
  },
  // Last, so that the scenarios before it keep their JobIDs (jobIdOf their index).
  {
    file: 'probe-backend-step6-unanswered-stopped',
    what: "ProbeBackend whose probe TrainJob create is reset until CallBound: the probe Start ends ErrOutcomeUnknown at step 6, the start gate unproven, and what it may have made is stopped by name and token (patch probe-stops-what-it-may-have-made)",
    expect: { ok: true },
    async run(w) {
      w.proxy.inject(always('POST', trainJobsPath(NAMESPACE), 'reset'));
      try {
        const gates = await w.proxied.probe();
        if (gates.start || !gates.reasons.some((r) => r.startsWith('start: waiting for TrainJob')))
          throw new Error(`expected the start gate unproven at step 6, got ${JSON.stringify(gates)}`);
      } finally {
        w.proxy.clear();
      }
      return w.proxied.client.workflow.getHandle(probeWorkflowId(NAMESPACE));
    },
  },
  // The real-Kueue and new-path scenarios (--group real-kueue-and-paths), appended so that the ones
  // before keep their JobIDs; the Kueue-mode ones above are in the group too.
  {
    file: 'watch-kueue-succeeded',
    what: "WatchTrainJob in Kueue mode on the real Kueue: Start, Open, dispatch's admission check controller sets the check Ready, Kueue admits, KWOK runs it to Complete: Succeeded",
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    run: afterStart('watch', ['open'], (w) => w.kueue),
  },
  {
    file: 'start-earlier-run-adopted',
    what: "a Start of an attempt whose earlier run succeeded, run again after that run closed (its answer lost): step 5 reuses the copy the earlier run's TrainJob owns, step 6 adopts that TrainJob (docs/contract.md §7): completed, the same ref",
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    async run(w, r) {
      const first = await w.direct.startTrainJob(r);
      const handle = await ended(w.direct, r);
      const again = (await handle.result()) as { uid: string };
      if (again.uid !== first.uid) throw new Error(`the retried Start answered UID ${again.uid}, not the earlier run's ${first.uid}`);
      return handle;
    },
  },
  {
    file: 'watch-continued-as-new',
    what: `WatchTrainJob that continues as new: its opened TrainJob (pods that run ten minutes) held and released while watched, each change a wake and a read, until Temporal suggests continuing as new (at ${SUGGEST_CONTINUE_AS_NEW_EVENTS} events here); the history of that first run, which ends ContinuedAsNew (the next run answers Absent after a Stop)`,
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    runtime: LONG_RUNTIME,
    async run(w, r) {
      const client = w.direct;
      const ref = await openedRef(client, r);
      const watch = await client.submitOperation('watch', ref);
      const firstRun = client.client.workflow.getHandle(watch.workflowId, watch.firstExecutionRunId);
      await shows(firstRun, 'Running');
      // Each Hold and Release is a change (a wake, a read, a phase shown); how many it takes to reach
      // the suggestion depends on how the Watch waits, so they go on until the first run has continued.
      const continued = async () => (await firstRun.describe()).status.name === 'CONTINUED_AS_NEW';
      for (let i = 0; i < 10 && !(await continued()); i++) {
        await client.hold(ref);
        await client.release(ref);
      }
      await until('the Watch to continue as new', continued, 60_000);
      await client.stop(ref);
      await watch.result();
      return firstRun;
    },
  },
  {
    file: 'hold-stale-writes-in-a-row',
    what: "HoldTrainJob whose patch of the TrainJob goes stale three times in a row (another writer changes the TrainJob while the proxy holds each patch 2 s, so the patch's resourceVersion test fails): read again and patch again after a longer pause each time, then Held",
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    // Still running when the Hold comes: the sample's pods complete within seconds of the Open.
    runtime: LONG_RUNTIME,
    async run(w, r) {
      const client = w.proxiedPatient;
      const ref = await openedRef(client, r);
      const path = `${trainJobsPath(NAMESPACE)}/${ref.name}`;
      const patches = () => w.proxy.requests.filter((q) => q.method === 'PATCH' && q.path === path);
      const before = patches().length;
      w.proxy.inject({ method: 'PATCH', path, times: STALE_WRITES, action: 'delay', delayMs: STALE_DELAY_MS });
      const writing = { done: false };
      const writer = changeEachDelayed(w.admin, ref, () => patches().slice(before), writing);
      try {
        const handle = await operation(client, 'hold', ref);
        const answers = patches().slice(before).map((q) => q.upstreamStatus);
        const stale = answers.filter((status) => status === 409 || status === 422).length;
        if (stale < STALE_WRITES) {
          const ended = await handle.result().then(JSON.stringify, (e: unknown) => String(fromFailure(e)?.reasons ?? e));
          throw new Error(`expected ${STALE_WRITES} stale patches in a row, the API server answered ${JSON.stringify(answers)}; the Hold: ${ended}`);
        }
        return handle;
      } finally {
        writing.done = true;
        w.proxy.clear();
        await writer;
      }
    },
  },
  {
    file: 'probe-backend-step5-unanswered-stopped',
    what: "ProbeBackend whose probe runtime copy create lands with its answer lost, then answers 500 until CallBound: the probe Start ends ErrUnreachable at step 5, the start gate unknown (no definite answer), and the copy it may have made is stopped by name and token (patch probe-stops-what-it-may-have-made, step-5 branch)",
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    async run(w) {
      const creates = () => w.proxy.requests.filter((q) => q.method === 'POST' && q.path === runtimesPath(NAMESPACE));
      const before = creates().length;
      w.proxy.inject({ method: 'POST', path: runtimesPath(NAMESPACE), times: 1, action: 'drop-response' });
      w.proxy.inject(always('POST', runtimesPath(NAMESPACE), 'status-500'));
      try {
        const gates = await w.proxied.probe();
        if (gates.start || !gates.reasons.some((reason) => reason.startsWith('start:')))
          throw new Error(`expected the start gate unproven at step 5, got ${JSON.stringify(gates)}`);
        if (creates()[before]?.upstreamStatus !== 201)
          throw new Error(`expected the probe copy's first create to land, got ${JSON.stringify(creates().slice(before))}`);
      } finally {
        w.proxy.clear();
      }
      return w.proxied.client.workflow.getHandle(probeWorkflowId(NAMESPACE));
    },
  },
  // The declarative operations (patch operations-declarative, docs/contract.md §9a) in plain mode,
  // where they differ from the plans before the patch; appended so that the ones before keep their JobIDs.
  {
    file: 'release-never-opened-gated',
    what: 'HoldTrainJob then ReleaseTrainJob of a plain TrainJob never opened: the held annotation goes, spec.suspend stays true: Gated',
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    run: afterStart('release', ['hold']),
  },
  {
    file: 'open-held-records-opened',
    what: 'OpenTrainJob of a held plain TrainJob: the opened annotation recorded, spec.suspend stays true: Held',
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    run: afterStart('open', ['hold']),
  },
  {
    file: 'release-not-held-answers-state',
    what: 'ReleaseTrainJob of an opened plain TrainJob that is not held: nothing written, its state answered (no refusal)',
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    run: afterStart('release', ['open']),
  },
  {
    file: 'open-another-uid-absent',
    what: "OpenTrainJob with a UID that is not the TrainJob's: Absent, nothing written",
    expect: { ok: true },
    group: REAL_KUEUE_AND_PATHS,
    run: async (w, r) => operation(w.direct, 'open', { ...(await startedRef(w.direct, r)), uid: '00000000-0000-4000-8000-000000000000' }),
  },
  {
    file: 'start-step8-unanswered-once-then-read',
    what: "the read-back's first request hangs: the fold of steps 7 and 8 stops at step 8 (patch start-folded-calls), step 8's own call reads it after a backoff: completed",
    expect: { ok: true },
    run: (w, r) => withFaults(w, r, [{ method: 'GET', path: `${trainJobsPath(NAMESPACE)}/${nameOf(r)}`, times: 1, action: 'hang' }]),
  },
  // Replay coverage per patch site (test/unit/replay/patch-sites.test.ts): the branches no set had.
  // Appended so that the scenarios before keep their JobIDs.
  {
    file: 'stop-another-uid-absent',
    what: "StopTrainJob with a UID that is not the TrainJob's: Absent, nothing deleted (patch operations-declarative: before it, ErrRejected)",
    expect: { ok: true },
    async run(w, r) {
      const ref = await startedRef(w.direct, r);
      const handle = await operation(w.direct, 'stop', { ...ref, uid: '00000000-0000-4000-8000-000000000000' });
      const left = await w.admin.custom.getNamespacedCustomObject({ ...trainerAt(NAMESPACE, Trainer.trainJobPlural), name: ref.name });
      if ((left as { metadata?: { uid?: string } }).metadata?.uid !== ref.uid) throw new Error(`TrainJob ${ref.name} of UID ${ref.uid} is gone after a Stop of another UID`);
      return handle;
    },
  },
  {
    file: 'probe-backend-step6-unanswered-left',
    what: 'ProbeBackend whose probe TrainJob create is reset until CallBound: the probe Start ends ErrOutcomeUnknown at step 6, the start gate unproven, and the runtime copy it made is left (the old branch of patch probe-stops-what-it-may-have-made, recorded from the code before it)',
    expect: { ok: true },
    before: 'probe-stops-what-it-may-have-made',
    async run(w) {
      const runtimes = trainerAt(NAMESPACE, Trainer.trainingRuntimePlural);
      const names = async () =>
        new Set(((await w.admin.custom.listNamespacedCustomObject(runtimes)) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name));
      const before = await names();
      w.proxy.inject(always('POST', trainJobsPath(NAMESPACE), 'reset'));
      try {
        const gates = await w.proxied.probe();
        if (gates.start || !gates.reasons.some((reason) => reason.startsWith('start:') && /step 6|TrainJob/.test(reason)))
          throw new Error(`expected the start gate unproven at step 6, got ${JSON.stringify(gates)}`);
      } finally {
        w.proxy.clear();
      }
      const left = [...(await names())].filter((name) => !before.has(name));
      if (left.length !== 1) throw new Error(`expected the probe's runtime copy left (the old branch stops nothing), found new runtimes ${JSON.stringify(left)}`);
      return w.proxied.client.workflow.getHandle(probeWorkflowId(NAMESPACE));
    },
  },
  {
    file: 'start-step1-start-gate-unproven-copy-left',
    what: "the start gate unproven (reach and write proven), and a runtime copy of this attempt's with no owner (as a lost first workflow task leaves it): ErrUnsupported at step 1, the copy left (the old branch of patch gate-refusal-removes-unowned-copy, recorded from the code before it)",
    expect: { type: 'ErrUnsupported', step: 1 },
    before: 'gate-refusal-removes-unowned-copy',
    run: (w, r) => refusedWithUnownedCopy(w, r, 'left'),
  },
];

/** How many of Hold's patches go stale in a row in hold-stale-writes-in-a-row, and how long the proxy holds each. */
const STALE_WRITES = 3;
const STALE_DELAY_MS = 2_000;

/**
 * For each patch the proxy holds back (`delay`), changes the TrainJob once (an annotation of its
 * own) while it is held, so that the patch reaches the API server after the resourceVersion it
 * tests has gone. Throws when a change came too late to do so (a machine too loaded to record this).
 */
async function changeEachDelayed(
  admin: KubeClients,
  ref: TrainJobRef,
  patches: () => ProxiedRequest[],
  writing: { done: boolean },
): Promise<void> {
  let changed = 0;
  while (!writing.done) {
    const held = patches().filter((q) => q.fault === 'delay');
    if (held.length === changed) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    const patch = held[changed]!;
    changed += 1;
    await admin.custom.patchNamespacedCustomObject(
      {
        ...trainerAt(ref.namespace, Trainer.trainJobPlural),
        name: ref.name,
        body: { metadata: { annotations: { 'test.dispatch.phpboyscout.uk/changed': String(changed) } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    if (Date.now() >= patch.at + STALE_DELAY_MS) throw new Error(`the change for delayed patch ${changed} landed after the patch was let through`);
  }
}

/** Waits until a Watch's progress shows `phase`: its activity answered the phase change. */
const shows = (handle: WorkflowHandle, phase: string) =>
  until(`the Watch to show ${phase}`, async () => (await handle.query<{ phase?: string }>('progress')).phase === phase, 60_000);

const trainerAt = (namespace: string, plural: string) => ({
  group: Trainer.group,
  version: Trainer.version,
  namespace,
  plural,
});

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** How the workflow behind `handle` ended. */
async function outcomeOf(handle: WorkflowHandle): Promise<Outcome> {
  try {
    await handle.result();
    return { ok: true };
  } catch (error) {
    const typed = fromFailure(error);
    if (typed) return { type: typed.type, step: typed.step };
    if (error instanceof WorkflowFailedError && /cancel/i.test(String(error.cause)))
      return { cancelled: true };
    throw error;
  }
}

/** A fixed JobID per scenario, so that re-recording changes names and tokens as little as possible. */
const jobIdOf = (index: number) => `01JD0Q3J0Y6Q7J7Z4W2X5V${String(index).padStart(4, '0')}`;

const gitIn = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * What the tree has that HEAD does not: changed tracked files, and untracked files outside
 * test/histories (a set recorded earlier and not committed yet may be there). node_modules is the
 * installed dependencies, not the tree (a worktree's symlink to it escapes .gitignore's
 * `node_modules/`).
 */
function uncommitted(root = repoRoot): string[] {
  return gitIn(root, 'status', '--porcelain=v1', '--untracked-files=all', '--', '.', ':(exclude)node_modules')
    .split('\n')
    .filter((line) => line && !(line.startsWith('?? ') && line.slice(3).startsWith('test/histories/')));
}

/** A refusal of the recorder's rules: printed as a message, not a stack. */
class RecordRefused extends Error {}

const SET_NAME = /^\d{2,}-[a-z0-9]+(?:-[a-z0-9]+)*$/;

interface Plan {
  setDir: string;
  /** The full commit, or for an experiment the commit and whether the tree had changes. */
  commit: string;
  /** With `--code`: that checkout, whose src/ serves the scenarios; `commit` is its commit, `recorder` this tree's. */
  code?: { root: string; recorder: string };
  /** Where SHA256SUMS gets the set's lines: appended, after a new baseline header, or not at all. */
  sums: 'append' | 'baseline' | 'none';
}

/** Every refusal, before anything starts; throws a message naming what to do instead. */
function plan(set: string, mode: { baseline: boolean; experiment: boolean; code?: string | undefined }): Plan {
  const refuse = (why: string): never => {
    throw new RecordRefused(why);
  };
  if (mode.baseline && mode.experiment) refuse('--baseline and --experiment exclude each other');
  if (mode.baseline && mode.code) refuse('--baseline and --code exclude each other: a baseline is recorded from one commit');
  if (!SET_NAME.test(set)) refuse(`set name "${set}": want NN-what-changed (digits, a dash, kebab-case)`);
  const headOf = (root: string): string => {
    try {
      return gitIn(root, 'rev-parse', '--verify', 'HEAD').trim();
    } catch {
      return refuse(`${root} is not a git checkout with a commit: a set names the commit it was recorded from`);
    }
  };
  const recorder = headOf(repoRoot);
  let commit = recorder;
  let code: Plan['code'];
  const changes = uncommitted();
  if (mode.code) {
    const root = resolve(mode.code);
    commit = headOf(root);
    const codeChanges = uncommitted(root);
    if (codeChanges.length > 0 && !mode.experiment)
      refuse(
        [
          `--code ${root} has uncommitted changes; its src/ must be the commit the manifest names:`,
          ...codeChanges.slice(0, 20).map((line) => `  ${line}`),
        ].join('\n'),
      );
    // One copy of each package: the old worker is handed this tree's Temporal connection and client.
    const modules = (dir: string) => (existsSync(join(dir, 'node_modules')) ? realpathSync(join(dir, 'node_modules')) : '');
    if (modules(root) !== modules(repoRoot))
      refuse(
        `--code ${root}: its node_modules is not this tree's (${modules(repoRoot)}); link it (ln -s ${join(repoRoot, 'node_modules')} ${join(root, 'node_modules')}) when the two package-lock.json agree`,
      );
    code = { root, recorder };
  }
  if (mode.experiment) {
    const setDir = join(devDir, 'histories', set);
    if (existsSync(setDir)) refuse(`${setDir} exists: pick another name or remove it`);
    const dirty =
      changes.length > 0 ? ` with ${changes.length} uncommitted changes (experiment)` : ' (experiment)';
    return { setDir, commit: `${commit}${dirty}`, sums: 'none', ...(code ? { code } : {}) };
  }
  if (changes.length > 0)
    refuse(
      [
        `the tree has uncommitted changes; a set is recorded from a clean checkout of a commit, so that its manifest's commit is the code that recorded it:`,
        ...changes.slice(0, 20).map((line) => `  ${line}`),
        ...(changes.length > 20 ? [`  ... and ${changes.length - 20} more`] : []),
        `Commit them, or record from a clean worktree (docs/versioning.md), or pass --experiment to record into .dev/histories/.`,
      ].join('\n'),
    );
  const setDir = join(HISTORIES_DIR, set);
  if (existsSync(setDir))
    refuse(`${setDir} exists: a recorded set is never recorded again; a new set gets a new folder`);
  const sets = setNames();
  const versions = sumsVersions();
  if (mode.baseline) {
    if (sets.length > 0 || existsSync(SUMS_FILE))
      refuse(
        `--baseline records into an empty corpus: first commit the removal of every set and of test/histories/SHA256SUMS (there are: ${[...sets, ...(existsSync(SUMS_FILE) ? ['SHA256SUMS'] : [])].join(', ')})`,
      );
    const done = versions.find((v) => isBaselineHeader(linesOf(v.text)[0]));
    if (done)
      refuse(
        `the one baseline has been used (${done.label}: "${linesOf(done.text)[0]}"); record a new set instead`,
      );
    return { setDir, commit, sums: 'baseline' };
  }
  if (sets.length === 0)
    refuse('test/histories holds no set: the first set of an empty corpus is the baseline (--baseline)');
  const problems = [...verifyCorpus(), ...appendOnlyProblems(versions)];
  if (problems.length > 0)
    refuse(
      `the corpus does not match test/histories/SHA256SUMS:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  const last = [...parseSums(readFileSync(SUMS_FILE, 'utf8')).entries.keys()].at(-1) ?? '';
  if (`${set}/` <= last) refuse(`set name "${set}" sorts before ${last}: number it after every set there is`);
  return { setDir, commit, sums: 'append', ...(code ? { code } : {}) };
}

/** Appends the new set's files to SHA256SUMS (after a new baseline header for a baseline). */
function writeSums(set: string, files: Iterable<string>, sums: 'append' | 'baseline'): void {
  const paths = [...files].map((file) => `${set}/${file}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = [...hashesOf(paths)].map(([path, hash]) => sumsLine(path, hash));
  if (sums === 'baseline') writeFileSync(SUMS_FILE, [baselineHeader(new Date()), ...lines, ''].join('\n'));
  else {
    const before = readFileSync(SUMS_FILE, 'utf8');
    appendFileSync(SUMS_FILE, [...(before.endsWith('\n') || !before ? [] : ['']), ...lines, ''].join('\n'));
  }
  const problems = verifyCorpus();
  if (problems.length > 0) throw new Error(`SHA256SUMS after writing ${set}:\n${problems.join('\n')}`);
}

function writeKubeconfig(dir: string, name: string, access: KubeAccess): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, kubeconfigYaml(access));
  return file;
}

/** Regenerates README.md from every set's manifest. */
function writeIndex(): void {
  const sets = setNames().map(manifestOf);
  const lines = [
    '# Recorded workflow histories',
    '',
    'Generated by `npm run histories:record` (scripts/record-histories.ts); do not edit by hand.',
    '`test/unit/replay/replay.test.ts` replays every one of them with the current workflow code on',
    'every `npm test`. docs/versioning.md says when to record a new set and why old sets stay.',
    '',
    'The rules, and what holds them:',
    '',
    '- **A recorded set is never edited or recorded again; a new set gets a new folder**, numbered',
    '  after every other. `SHA256SUMS` (`sha256sum` format; `cd test/histories && sha256sum -c',
    '  SHA256SUMS`) has the hash of every file of every set, and the recorder only appends to it.',
    '  `test/unit/replay/history-guard.test.ts` fails when a file differs from its hash, a file is not',
    '  listed or a listed one is gone, and, in a git checkout, when a committed line of `SHA256SUMS`',
    '  was ever removed or changed, so editing a history and its hash together fails too. The',
    '  recorder refuses a folder that exists and a corpus that does not match `SHA256SUMS`.',
    '- **A set is recorded from a clean checkout**: the recorder refuses a tree with a change to a',
    '  tracked file or an untracked file outside test/histories, and writes the full commit into the',
    '  manifest, so that it names the code that recorded the set. (`--experiment` records any tree,',
    '  into .dev/histories/, never here.)',
    '- **One baseline**: once, before a release, every set may be replaced by one fresh set recorded',
    '  with `--baseline` into an emptied corpus; `SHA256SUMS` then starts again with a first line',
    '  `# baseline <date>`, and the append-only check counts from the commit that wrote it. A second',
    '  baseline fails the same check.',
    '- **Every patch site has histories of both branches**: for each `patched()` call in',
    '  src/workflows, and each workflow type whose replay reaches it, a history that reaches it with',
    '  the marker and one that reaches it without (test/unit/replay/patch-sites.test.ts, which replays',
    '  the corpus with each call reporting its answer; a `deprecatePatch()` id needs only a history with',
    '  its marker). A branch that only code from before a patch takes is recorded from a checkout of a',
    '  commit before it, with today\'s scenarios: `--code <checkout>` (docs/versioning.md).',
    '',
  ];
  for (const m of sets) {
    const recorder = m.recorder
      ? ` (its workflows, activities and worker; the scenario, the client and the stack of commit ${m.recorder})`
      : '';
    lines.push(`## ${m.set}`, '', `${m.note}`, '', `Recorded ${m.recordedAt} with commit ${m.commit}${recorder}.`, '');
    lines.push('| file | workflow | outcome | events | what |', '|---|---|---|---|---|');
    for (const h of m.histories)
      lines.push(`| ${h.file} | ${h.workflowType} | ${h.outcome} | ${h.events} | ${h.what} |`);
    lines.push('');
  }
  writeFileSync(join(HISTORIES_DIR, 'README.md'), lines.join('\n'));
}

/** What serves the scenarios: the workflows, activities, worker and configuration of a checkout's src/. */
interface Product {
  parseConfig: typeof parseConfig;
  createDispatchWorker: typeof createDispatchWorker;
  workflowsPath: string;
}

/**
 * This tree's product, or (--code) another checkout's, imported from its src/ (tsx compiles it).
 * Its packages are this tree's (plan() checks its node_modules is the same folder), so the old
 * worker takes this tree's Temporal connection and client; only what it is handed crosses over, as
 * data: a configuration it parses itself, the gates.
 */
async function productOf(root: string): Promise<Product> {
  const workflowsPath = join(root, 'src', 'workflows', 'index.ts');
  if (root === repoRoot) return { parseConfig, createDispatchWorker, workflowsPath };
  const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(root, path)).href)) as T;
  const config = await load<typeof import('../src/config/load-config.js')>('src/config/load-config.ts');
  const worker = await load<typeof import('../src/worker/dispatch-worker.js')>('src/worker/dispatch-worker.ts');
  return { parseConfig: config.parseConfig, createDispatchWorker: worker.createDispatchWorker, workflowsPath };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      set: { type: 'string' },
      note: { type: 'string' },
      baseline: { type: 'boolean' },
      experiment: { type: 'boolean' },
      only: { type: 'string' },
      group: { type: 'string' },
      code: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || !values.set) {
    process.stdout.write(HELP);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const { setDir, commit, code, sums } = plan(values.set, {
    baseline: values.baseline ?? false,
    experiment: values.experiment ?? false,
    code: values.code,
  });
  // --only: the scenarios whose file begins with one of these prefixes (a set of new workflow types);
  // --group: the scenarios of one group; --code: only, and all, the scenarios of an old branch.
  const prefixes = values.only?.split(',').filter((p) => p !== '');
  const chosen = [...SCENARIOS.entries()].filter(
    ([, s]) =>
      (!prefixes || prefixes.some((p) => s.file.startsWith(p))) &&
      (!values.group || s.group === values.group) &&
      (code ? s.before !== undefined : s.before === undefined),
  );
  if (chosen.length === 0)
    throw new RecordRefused(
      `--only ${values.only ?? '(any)'} --group ${values.group ?? '(any)'}${code ? ' --code' : ''}: no scenario is so${code ? ' (with --code, only the scenarios of an old branch)' : ''}`,
    );
  if (code) {
    // The checkout must be from before each patch whose old branch is recorded: no call of it in its src/workflows.
    const { calls } = scanPatchCalls(sourcesUnder(join(code.root, 'src', 'workflows'), code.root));
    for (const [, scenario] of chosen) {
      const there = calls.filter((c) => c.id === scenario.before).map((c) => c.where);
      if (there.length > 0)
        throw new RecordRefused(
          `${scenario.file} records the old branch of patch ${scenario.before}, but ${code.root} (${commit}) has it (${there.join(', ')}): check out a commit from before that patch`,
        );
    }
  }
  const product = await productOf(code?.root ?? repoRoot);

  // Failures are the point of most scenarios: the worker's warnings about them are noise here.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const t0 = Date.now();
  const [stack, bundle] = await Promise.all([
    // The real Kueue: a Kueue-mode history is recorded against what Kueue really does.
    startTestStack({
      namespace: NAMESPACE,
      temporalDynamicConfig: {
        ...TEMPORAL_DYNAMIC_CONFIG,
        'limit.historyCount.suggestContinueAsNew': SUGGEST_CONTINUE_AS_NEW_EVENTS,
      },
    }),
    bundleWorkflowCode({
      workflowsPath: product.workflowsPath,
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
    }),
  ]);
  const scratch = mkdtempSync(join(tmpdir(), 'dk-histories-'));
  const stops: (() => Promise<void>)[] = [];
  try {
    console.log(`stack and workflow bundle ready in ${Date.now() - t0} ms`);
    const admin = adminAccess(stack.info.kube);
    const adminClients = createKubeClients(loadKubeConfig(writeKubeconfig(scratch, 'admin', admin)));
    await kubeConfigFor(admin)
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: KUEUE_NAMESPACE } } });
    await applyKueueSamples(admin, [KUEUE_NAMESPACE]);
    const runtime = async (name: string, edit: RuntimeEdit) => {
      const spec = structuredClone((await sampleRuntime('dispatch-kind')).spec) as Json;
      edit({ job: spec.template.spec.replicatedJobs[0].template.spec } as RuntimeDraft);
      await adminClients.custom.createClusterCustomObject({
        group: Trainer.group,
        version: Trainer.version,
        plural: Trainer.clusterTrainingRuntimePlural,
        body: { apiVersion: Trainer.apiVersion, kind: Trainer.clusterTrainingRuntimeKind, metadata: { name }, spec },
      });
    };
    await runtime(WAIVED_RUNTIME.name, bendRankRestart);
    await runtime(LONG_RUNTIME.name, runFor('10m'));

    const proxy = await FaultProxy.start(admin);
    stops.push(() => proxy.close());
    const env = await TestWorkflowEnvironment.createFromExistingServer({
      address: stack.info.temporal.address,
      namespace: stack.info.temporal.namespace,
    });
    stops.push(() => env.teardown());

    let queue = 0;
    const worker = async (
      access: KubeAccess,
      config: Omit<ConfigInput, 'kubeconfig' | 'temporal'>,
      gates: BackendGates | 'none' = PROVEN,
      admissionController = false,
      requestTimeoutMs = 1_000,
    ): Promise<DispatchKubeflowClient> => {
      const name = `histories-${queue++}`;
      const parsed = product.parseConfig({
        ...config,
        kubeconfig: writeKubeconfig(scratch, name, access),
        temporal: { taskQueue: name },
      });
      const w = await product.createDispatchWorker({
        config: parsed,
        connection: env.nativeConnection,
        namespace: stack.info.temporal.namespace,
        client: env.client,
        workflowBundle: bundle,
        requestTimeoutMs,
        admissionController,
      });
      if (gates !== 'none') w.gates.update(gates);
      const running = w.worker.run();
      // Kueue mode on the real Kueue: dispatch's admission check controller keeps the check Active and marks opened Workloads Ready.
      const controlling = new AbortController();
      const controller = w.admissionController?.run(controlling.signal);
      // The Watch waker, as the product's worker runs it (docs/contract.md §9b).
      const waking = w.waker?.run(controlling.signal);
      stops.unshift(async () => {
        controlling.abort();
        w.worker.shutdown();
        await Promise.all([running, controller, waking]);
      });
      return new DispatchKubeflowClient(env.client, { namespace: parsed.namespace, taskQueue: name });
    };
    const timeouts = { call: CALL, workload: CALL };
    const kueueConfig = (admissionCheck: string) =>
      ({
        namespace: KUEUE_NAMESPACE,
        mode: 'kueue',
        kueue: { queue: KUEUE_SAMPLE_QUEUE, admissionCheck },
        // The real Kueue and the admission check controller take seconds to admit; a Watch runs to Complete.
        timeouts: { call: CALL, workload: '30s' },
      }) as const;
    const kueueAdmin = { ...admin, namespace: KUEUE_NAMESPACE };
    const workers: Workers = {
      direct: await worker(admin, { namespace: NAMESPACE, timeouts }),
      proxied: await worker(proxy.accessFor({ ...admin, namespace: NAMESPACE }), {
        namespace: NAMESPACE,
        timeouts,
      }),
      proxiedPatient: await worker(
        proxy.accessFor({ ...admin, namespace: NAMESPACE }),
        { namespace: NAMESPACE, timeouts: { call: '30s', workload: CALL } },
        PROVEN,
        false,
        10_000,
      ),
      kueue: await worker(kueueAdmin, kueueConfig(KUEUE_SAMPLE_CHECK), PROVEN, true),
      kueueUnlisted: await worker(kueueAdmin, { ...kueueConfig(UNLISTED_CHECK), timeouts }),
      lenient: await worker(admin, { namespace: NAMESPACE, timeouts, allowRankRestart: true }),
      unproven: await worker(admin, { namespace: NAMESPACE, timeouts }, 'none'),
      startUnproven: await worker(admin, { namespace: NAMESPACE, timeouts }, { ...PROVEN, start: false, reasons: ['start: refused for the recording'] }),
      proxy,
      admin: adminClients,
    };

    // Kept in memory until every scenario has ended as expected: a failed run writes nothing.
    const files = new Map<string, string>();
    const manifest: Manifest = {
      set: values.set,
      note: values.note ?? '',
      commit,
      ...(code ? { recorder: code.recorder } : {}),
      recordedAt: new Date().toISOString(),
      histories: [],
    };
    for (const [index, scenario] of chosen) {
      const started = Date.now();
      const request = {
        ...startRequest(scenario.runtime ? { runtime: scenario.runtime } : {}),
        job: jobIdOf(index),
      };
      const handle = await scenario.run(workers, request);
      const outcome = await outcomeOf(handle);
      if (describeOutcome(outcome) !== describeOutcome(scenario.expect))
        throw new Error(
          `${scenario.file}: expected ${describeOutcome(scenario.expect)}, got ${describeOutcome(outcome)}`,
        );
      const history = await handle.fetchHistory();
      const json = historyToJson(history);
      files.set(`${scenario.file}.json`, `${json}\n`);
      const description = await handle.describe();
      manifest.histories.push({
        file: `${scenario.file}.json`,
        workflowType: description.type,
        what: scenario.what,
        outcome: describeOutcome(outcome),
        events: history.events?.length ?? 0,
      });
      console.log(
        `${scenario.file}: ${describeOutcome(outcome)}, ${history.events?.length} events, ${Date.now() - started} ms`,
      );
    }
    files.set('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
    // Not recursive for the set itself: a folder that appeared meanwhile is refused, not written into.
    mkdirSync(dirname(setDir), { recursive: true });
    mkdirSync(setDir);
    for (const [file, text] of files) writeFileSync(join(setDir, file), text);
    if (sums !== 'none') {
      writeSums(values.set, files.keys(), sums);
      writeIndex();
      assignNewSet(values.set, sums === 'baseline');
    }
    console.log(`recorded ${chosen.length} histories in ${setDir} in ${Date.now() - t0} ms`);
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => console.error(error));
    await stack.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  if (error instanceof RecordRefused) console.error(`histories:record refused: ${error.message}`);
  else console.error(error);
  process.exitCode = 1;
});
