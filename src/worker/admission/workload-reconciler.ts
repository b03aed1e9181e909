// The Workload reconciler (as Kueue's provisioning controller.go): for dispatch's AdmissionCheck,
// reads the namespace's Workloads and dispatch's TrainJobs and sets the check `Ready` on each
// Workload whose TrainJob may run (the core decides, src/core/admission/workload-ready.ts).
//
// The Workloads and TrainJobs listed (or the watch-fed copy) only narrow. The `Ready` write tests
// the Workload alone, and a Hold's first write is to the TrainJob when it read no Workload (or one
// Kueue deactivated; otherwise it deactivates the Workload first), so the controller never readies a
// held TrainJob by: (1) deciding on a read of the TrainJob made after the Workload's quota
// reservation was read, (2) reading it again once the write applied, and undoing the write at once
// if the TrainJob is held by then (workload-undo.ts: Pending, whose resourceVersion makes Kueue's
// admission write fail; Retry if Kueue admitted first), and (3) each pass, undoing any `Ready` on a
// held TrainJob that was left standing.
import type { KubeAnswer } from '../../kube/call.js';
import { describeObject } from '../../core/objects/describe.js';
import { readiesToUndo, undoReadyDecision } from '../../core/admission/workload-undo.js';
import { keptOf } from '../../kube/kept.js';
import { LIST_PAGE_SIZE, TRAINJOBS, workloads, type NamespacedKind } from '../../kube/objects.js';
import type { WatchedLists } from '../../kube/watched-lists.js';
import { isDispatchController } from '../../core/admission/check-active.js';
import { readyCandidates, readyDecision, trainJobsByUid, type WorkloadDecision } from '../../core/admission/workload-ready.js';
import { nudgeCandidates, nudgeDecision } from '../../core/admission/multikueue-nudge.js';
import type { OperationConfig } from '../../core/operations/observed.js';
import { LabelValues, Labels } from '../../model/constants.js';
import type { KubeObject, TrainJob, Workload } from '../../model/kube.js';
import type { AdmissionCheck } from '../../model/kube.js';
import { DispatchAdmissionCheck } from '../../model/constants.js';
import type { AdmissionPass, WriteKind } from './pass.js';

export interface WorkloadReconcilerDeps {
  config: OperationConfig;
  /** The worker's watch-fed lists, read instead of listing while their feeds are in step. */
  lists?: Pick<WatchedLists, 'snapshot'>;
}

type ListAnswer = KubeAnswer<{ items?: KubeObject[] }>;

/** The namespace's objects of a kind by label: from the watch-fed copy while it is in step, else listed. */
function listOf(pass: AdmissionPass, deps: WorkloadReconcilerDeps, kind: NamespacedKind, watched: { label: string; keep: (o: KubeObject) => boolean }, selector: string): Promise<ListAnswer> {
  const namespace = deps.config.namespace;
  const items = deps.lists?.snapshot(kind, namespace, watched.label);
  if (items) return Promise.resolve({ answered: 'ok', value: { items: items.filter(watched.keep) } });
  // In pages, trimmed as they come: a namespace of 10,000 dispatch TrainJobs listed whole is past the worker's heap.
  return pass.ask(() => pass.calls.listInPages(kind, namespace, selector, { pageSize: LIST_PAGE_SIZE, keep: keptOf(kind) }));
}

/** Reconciles the Workloads against the AdmissionCheck as read this pass. */
export async function reconcileWorkloads(pass: AdmissionPass, check: AdmissionCheck, deps: WorkloadReconcilerDeps): Promise<void> {
  const { config } = deps;
  if (!isDispatchController(check)) {
    // Another controller's check (as Kueue's own check controllers, by controllerName): its
    // entries on the Workloads are that controller's to set.
    pass.problems.push(
      `${DispatchAdmissionCheck.kind} ${config.kueue.admissionCheck}: spec.controllerName is ${JSON.stringify(check.spec?.controllerName)}, not ${DispatchAdmissionCheck.controllerName}; no Workload is marked`,
    );
    return;
  }
  const [workloadList, trainJobList] = await Promise.all([
    listOf(pass, deps, workloads(pass.workloadVersion), { label: Labels.kueueJobUid, keep: () => true }, Labels.kueueJobUid),
    // dispatch's TrainJobs all carry the job-id label, so the Watches' feed holds them.
    listOf(
      pass,
      deps,
      TRAINJOBS,
      { label: Labels.jobId, keep: (t) => t.metadata?.labels?.[Labels.managedBy] === LabelValues.managedBy },
      `${Labels.managedBy}=${LabelValues.managedBy}`,
    ),
  ]);
  for (const [what, answer] of [['Workloads', workloadList], ['TrainJobs', trainJobList]] as const) {
    if (answer.answered === 'definite') pass.refused(`listing the ${what} of ${config.namespace}`, answer);
  }
  if (workloadList.answered !== 'ok' || trainJobList.answered !== 'ok') return;
  const workloadsRead = (workloadList.value.items ?? []) as Workload[];
  const trainJobs = trainJobsByUid((trainJobList.value.items ?? []) as TrainJob[]);
  // One at a time: a pass has few to write, and a stale one says nothing of the next. The undoes
  // first: each is a held job's Workload that Kueue may be admitting.
  for (const { workload, trainJob } of readiesToUndo(workloadsRead, trainJobs, config, pass.at)) {
    const now = await readTrainJob(pass, config, trainJob);
    if (now !== REFUSED) await undoIfHeld(pass, config, workload, now);
  }
  for (const { workload, trainJob } of readyCandidates(workloadsRead, trainJobs, config, pass.at)) {
    await markReady(pass, config, workload, trainJob);
  }
  // MultiKueue: a Ready written again where MultiKueue left the Workload unnominated (multikueue-nudge.ts).
  for (const { workload, trainJob } of nudgeCandidates(workloadsRead, trainJobs, config, pass.at)) {
    await markReady(pass, config, workload, trainJob, nudgeDecision, 'nudge');
  }
}

const REFUSED = Symbol('refused');

/** The TrainJob as the API server holds it now (a quorum read, never the watch-fed copy); undefined once gone. */
async function readTrainJob(pass: AdmissionPass, config: OperationConfig, listed: TrainJob): Promise<TrainJob | undefined | typeof REFUSED> {
  const name = listed.metadata?.name ?? '';
  const answer = await pass.ask(() => pass.calls.get(TRAINJOBS, config.namespace, name));
  if (answer.answered === 'ok') return answer.value as TrainJob;
  if (answer.status === 404) return undefined;
  pass.refused(`reading ${describeObject('TrainJob', listed)}`, answer);
  return REFUSED;
}

/**
 * Sets the check Ready (or, with nudgeDecision, writes it Ready again) on a read of the TrainJob
 * made now, after the Workload (with its quota reservation) was read; then reads the TrainJob
 * again, and undoes the write at once if a Hold landed in between.
 */
async function markReady(
  pass: AdmissionPass,
  config: OperationConfig,
  workload: Workload,
  listed: TrainJob,
  decide: WorkloadDecision = readyDecision,
  kind: WriteKind = 'ready',
): Promise<void> {
  const before = await readTrainJob(pass, config, listed);
  if (before === REFUSED) return;
  const decision = decide(workload, before, config, pass.at);
  if (decision.action === 'none') return;
  const written = await pass.write(decision.write, kind);
  if (written.outcome !== 'applied') return;
  const after = await readTrainJob(pass, config, listed);
  if (after === REFUSED) return;
  await undoIfHeld(pass, config, written.object as Workload, after);
}

/**
 * Undoes dispatch's Ready on the Workload if the TrainJob, as just read, is held. When the Workload
 * changed since it was read (Kueue admitted it, most likely), it is read again and decided once more:
 * Retry if admitted. A second stale write is left to the next pass.
 */
async function undoIfHeld(pass: AdmissionPass, config: OperationConfig, workload: Workload, trainJob: TrainJob | undefined): Promise<void> {
  const decision = undoReadyDecision(workload, trainJob, config, pass.at);
  if (decision.action === 'none') return;
  const undone = await pass.write(decision.write, 'undo');
  if (undone.outcome !== 'stale') return;
  const reread = await pass.ask(() => pass.calls.get(workloads(pass.workloadVersion), config.namespace, workload.metadata?.name ?? ''));
  if (reread.answered !== 'ok') {
    // Gone (404): nothing left to undo. Any other refusal is the pass's problem, tried again next pass.
    if (reread.status !== 404) pass.refused(`reading ${describeObject('Workload', workload)}`, reread);
    return;
  }
  const again = undoReadyDecision(reread.value as Workload, trainJob, config, pass.at);
  if (again.action === 'patch') await pass.write(again.write, 'undo');
}
