// The Workload reconciler (as Kueue's provisioning controller.go): for dispatch's AdmissionCheck,
// reads the namespace's Workloads and dispatch's TrainJobs and sets the check `Ready` on each
// Workload whose TrainJob may run (the core decides, src/core/admission/workload-ready.ts).
import type { KubeAnswer } from '../../kube/call.js';
import { keptOf } from '../../kube/kept.js';
import { LIST_PAGE_SIZE, TRAINJOBS, workloads, type NamespacedKind } from '../../kube/objects.js';
import type { WatchedLists } from '../../kube/watched-lists.js';
import { isDispatchController } from '../../core/admission/check-active.js';
import { trainJobsByUid, workloadsToMarkReady } from '../../core/admission/workload-ready.js';
import type { OperationConfig } from '../../core/operations/observed.js';
import { LabelValues, Labels } from '../../model/constants.js';
import type { KubeObject, TrainJob, Workload } from '../../model/kube.js';
import type { AdmissionCheck } from '../../model/kube.js';
import { DispatchAdmissionCheck } from '../../model/constants.js';
import type { AdmissionPass } from './pass.js';

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
  const ready = workloadsToMarkReady(
    (workloadList.value.items ?? []) as Workload[],
    trainJobsByUid((trainJobList.value.items ?? []) as TrainJob[]),
    config,
    pass.at,
  );
  // One at a time: a pass has few to write, and a stale one says nothing of the next.
  for (const planned of ready) await pass.write(planned);
}
