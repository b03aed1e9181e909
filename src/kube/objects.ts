// Addresses of the objects Start touches, and thin typed calls on them through CustomObjectsApi.
// Each returns the classified answer (call.ts); the activities decide what an answer means.
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { Kueue, Trainer } from '../model/constants.js';
import type { KubeObject } from '../model/kube.js';
import type { RuntimeName } from '../core/objects/runtime-name.js';
import type { KubeClients } from './clients.js';
import { asSent } from './as-sent.js';
import { kubeCall, type CallContext, type KubeAnswer } from './call.js';

export interface NamespacedKind {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

export const TRAINJOBS: NamespacedKind = {
  group: Trainer.group,
  version: Trainer.version,
  plural: Trainer.trainJobPlural,
  kind: Trainer.trainJobKind,
};

export const TRAINING_RUNTIMES: NamespacedKind = {
  group: Trainer.group,
  version: Trainer.version,
  plural: Trainer.trainingRuntimePlural,
  kind: Trainer.trainingRuntimeKind,
};

export const workloads = (version: string): NamespacedKind => ({
  group: Kueue.group,
  version,
  plural: Kueue.workloadPlural,
  kind: 'Workload',
});

/**
 * Core pods, for a feed of WatchedLists (a worker cluster's pods, src/worker/worker-pod-watch.ts).
 * The core group is '': listed through CoreV1Api, watched at /api/v1 (collectionPath).
 */
export const PODS: NamespacedKind = { group: '', version: 'v1', plural: 'pods', kind: 'Pod' };

const isCore = (kind: NamespacedKind) => kind.group === '';

/** Where a kind's objects of a namespace are listed and watched: /api/<version>/... for the core group, /apis/<group>/<version>/... otherwise. */
export function collectionPath(kind: NamespacedKind, namespace: string): string {
  const root = isCore(kind) ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  return `${root}/namespaces/${namespace}/${kind.plural}`;
}

/** A cluster-scoped kind (dispatch's AdmissionCheck). */
export type ClusterKind = NamespacedKind;

export const admissionChecks = (version: string): ClusterKind => ({
  group: Kueue.group,
  version,
  plural: 'admissionchecks',
  kind: 'AdmissionCheck',
});

/** MultiKueue: the manager's MultiKueueCluster of a worker cluster (its name), whose condition Active says Kueue reaches it. */
export const multiKueueClusters = (version: string): ClusterKind => ({
  group: Kueue.group,
  version,
  plural: 'multikueueclusters',
  kind: 'MultiKueueCluster',
});

/** A page of a list: its items, the snapshot's resourceVersion and, unless it is the last, where the next begins. */
export interface ListPage {
  items?: KubeObject[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/** How ObjectCalls.listInPages lists. */
export interface PagedList {
  pageSize: number;
  /** What is kept of each object as its page comes (kept.ts). */
  keep: (object: KubeObject) => KubeObject;
  stillWanted?: () => boolean;
}

/** Objects per page of a list the worker holds whole: a page of dispatch TrainJobs is a few MB of JSON at most. */
export const LIST_PAGE_SIZE = 500;

/** What a definite answer is about, e.g. "TrainJob ml/dj-x-s1" (core/objects/describe.ts describes an object as read). */
export const objectAddress = (kind: NamespacedKind, namespace: string, name: string) => `${kind.kind} ${namespace}/${name}`;

export class ObjectCalls {
  constructor(
    private readonly kube: KubeClients,
    private readonly ctx: CallContext,
  ) {}

  private call<T>(what: string, fn: (options: ConfigurationOptions) => Promise<T>): Promise<KubeAnswer<T>> {
    return kubeCall(what, this.ctx, fn);
  }

  get(kind: NamespacedKind, namespace: string, name: string): Promise<KubeAnswer<KubeObject>> {
    return this.call(`get ${objectAddress(kind, namespace, name)}`, (o) =>
      this.kube.custom.getNamespacedCustomObject({ ...kind, namespace, name }, o),
    );
  }

  getRuntime(runtime: RuntimeName, namespace: string): Promise<KubeAnswer<KubeObject>> {
    if (runtime.kind === Trainer.trainingRuntimeKind) return this.get(TRAINING_RUNTIMES, namespace, runtime.name);
    return this.call(`get ClusterTrainingRuntime ${runtime.name}`, (o) =>
      this.kube.custom.getClusterCustomObject(
        { group: Trainer.group, version: Trainer.version, plural: Trainer.clusterTrainingRuntimePlural, name: runtime.name },
        o,
      ),
    );
  }

  create(kind: NamespacedKind, namespace: string, body: KubeObject): Promise<KubeAnswer<KubeObject>> {
    return this.call(`create ${objectAddress(kind, namespace, body.metadata?.name ?? '')}`, (o) =>
      this.kube.custom.createNamespacedCustomObject({ ...kind, namespace, body, fieldManager: 'dispatch-kubeflow' }, o),
    );
  }

  /** A JSON patch; a `test` operation on metadata.uid makes it apply only to the object we created. */
  patch(kind: NamespacedKind, namespace: string, name: string, body: object[]): Promise<KubeAnswer<KubeObject>> {
    return this.call(`patch ${objectAddress(kind, namespace, name)}`, (o) =>
      this.kube.custom.patchNamespacedCustomObject({ ...kind, namespace, name, body, fieldManager: 'dispatch-kubeflow' }, o),
    );
  }

  /**
   * Delete by UID precondition, so that an object of the same name that we did not create is never
   * deleted; with a resourceVersion too, a write since it was read makes the delete fail (409).
   */
  deleteByUid(kind: NamespacedKind, namespace: string, name: string, uid: string, resourceVersion?: string): Promise<KubeAnswer<unknown>> {
    const preconditions = resourceVersion ? { uid, resourceVersion } : { uid };
    return this.call(`delete ${objectAddress(kind, namespace, name)}`, (o) =>
      this.kube.custom.deleteNamespacedCustomObject(
        { ...kind, namespace, name, propagationPolicy: 'Background', body: { preconditions } },
        o,
      ),
    );
  }

  /** A JSON patch of the status subresource (the admission check controller's writes). */
  patchStatus(kind: NamespacedKind, namespace: string, name: string, body: object[]): Promise<KubeAnswer<KubeObject>> {
    return this.call(`patch ${objectAddress(kind, namespace, name)} status`, (o) =>
      this.kube.custom.patchNamespacedCustomObjectStatus({ ...kind, namespace, name, body, fieldManager: 'dispatch-kubeflow' }, o),
    );
  }

  getClusterScoped(kind: ClusterKind, name: string): Promise<KubeAnswer<KubeObject>> {
    return this.call(`get ${kind.kind} ${name}`, (o) => this.kube.custom.getClusterCustomObject({ ...kind, name }, o));
  }

  patchClusterScopedStatus(kind: ClusterKind, name: string, body: object[]): Promise<KubeAnswer<KubeObject>> {
    return this.call(`patch ${kind.kind} ${name} status`, (o) =>
      this.kube.custom.patchClusterCustomObjectStatus({ ...kind, name, body, fieldManager: 'dispatch-kubeflow' }, o),
    );
  }

  /** Pods by label selector (Watch: a failed job's pods, by its job-id label). */
  listPods(namespace: string, labelSelector: string): Promise<KubeAnswer<{ items?: KubeObject[] }>> {
    return this.call(`list pods in ${namespace}`, async (o) => {
      const list = await this.kube.core.listNamespacedPod({ namespace, labelSelector }, o);
      return { items: asSent(list.items ?? []) as unknown as KubeObject[] };
    });
  }

  list(kind: NamespacedKind, namespace: string, labelSelector: string): Promise<KubeAnswer<{ items?: KubeObject[] }>> {
    return this.call(`list ${kind.plural} in ${namespace}`, (o) =>
      this.kube.custom.listNamespacedCustomObject({ ...kind, namespace, labelSelector }, o),
    );
  }

  /**
   * Every object of a list, asked for in pages of `pageSize` and each object passed through `keep`
   * (a trimmed copy) before the next page is asked for: a list of 10,000 dispatch TrainJobs in one
   * answer is ~200 MB of parsed JSON, past the worker's heap limit (src/worker/heap.ts). The answer's
   * resourceVersion is the snapshot's (every page of one list has it). `stillWanted` is asked
   * between pages; when it says no the list stops, and its caller must not use the answer.
   */
  async listInPages(kind: NamespacedKind, namespace: string, labelSelector: string, options: PagedList): Promise<KubeAnswer<ListPage>> {
    const items: KubeObject[] = [];
    let resourceVersion: string | undefined;
    let continueFrom: string | undefined;
    do {
      // A page refused (its continue token expired, say) refuses the whole list: its caller lists again from the start.
      const page = await this.listPage(kind, namespace, labelSelector, options.pageSize, continueFrom);
      if (page.answered !== 'ok') return page;
      for (const item of page.value.items ?? []) items.push(options.keep(item));
      resourceVersion = page.value.metadata?.resourceVersion ?? resourceVersion;
      continueFrom = page.value.metadata?.continue || undefined;
    } while (continueFrom && (options.stillWanted?.() ?? true));
    return { answered: 'ok', value: { items, metadata: resourceVersion === undefined ? {} : { resourceVersion } } };
  }

  /** One page of a list (`limit` objects at most, from `continueFrom`); the last page has no `continue`. */
  listPage(kind: NamespacedKind, namespace: string, labelSelector: string, limit: number, continueFrom?: string): Promise<KubeAnswer<ListPage>> {
    if (isCore(kind)) return this.listPodPage(kind, namespace, labelSelector, limit, continueFrom);
    return this.call(`list ${kind.plural} in ${namespace}`, (o) =>
      this.kube.custom.listNamespacedCustomObject(
        { ...kind, namespace, labelSelector, limit, ...(continueFrom ? { _continue: continueFrom } : {}) },
        o,
      ) as Promise<ListPage>,
    );
  }

  /**
   * A page of pods, the only core kind listed in pages: CoreV1Api's typed list names the next
   * page `_continue` and gives times as Dates, so its answer is put in ListPage's shape, and its
   * pods as sent (as-sent.ts), here.
   */
  private listPodPage(kind: NamespacedKind, namespace: string, labelSelector: string, limit: number, continueFrom?: string): Promise<KubeAnswer<ListPage>> {
    if (kind.plural !== PODS.plural) throw new Error(`no paged list of core ${kind.plural}`);
    return this.call(`list pods in ${namespace}`, async (o) => {
      const list = await this.kube.core.listNamespacedPod({ namespace, labelSelector, limit, ...(continueFrom ? { _continue: continueFrom } : {}) }, o);
      const { resourceVersion, _continue: next } = list.metadata ?? {};
      return {
        items: asSent(list.items ?? []) as unknown as KubeObject[],
        metadata: { ...(resourceVersion !== undefined ? { resourceVersion } : {}), ...(next ? { continue: next } : {}) },
      };
    });
  }
}
