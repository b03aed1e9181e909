// An in-memory API server for the admission check controller's tests: objects by plural, namespace
// and name; JSON patches applied as the API server does (a failed `test` is its 422); resourceVersion
// bumped on each write; `fault` answers a call instead, every call is recorded, and `beforeServe` /
// `afterWrite` let a test land another writer's change (a Hold, Kueue admitting) at an exact point.
// `cluster()` is dispatch's AdmissionCheck with Workloads a..e, of which only `a` and `b` are to be
// marked Ready.
import { ApiException } from '@kubernetes/client-node';
import type { KubeClients } from '../../../../src/kube/clients.js';
import type { KubeObject, Workload } from '../../../../src/model/kube.js';
import type { JsonPatchOp } from '../../../../src/model/kube.js';
import { applyJsonPatch, JsonPatchError } from '../../../support/json-patch.js';
import { CHECK, condition, NS, trainJob, workload } from '../../core/operation-fixtures.js';

export const CONTROLLER = 'dispatch.phpboyscout.uk/admission-check';
export const NOW = new Date('2026-01-02T03:04:05.678Z');
export const RESERVED = condition('QuotaReserved', 'True', 'QuotaReserved', 'Quota reserved in ClusterQueue cq');
const PATCH_NOT_APPLIED = 'the server rejected our request due to an error in our request';

export const apiError = (code: number, message: string, reason = '') => new ApiException(code, message, { reason, message }, {});

export interface Params {
  plural: string;
  namespace?: string;
  name?: string;
  labelSelector?: string;
  body?: JsonPatchOp[];
  /** A list's page: at most `limit` objects, from the index `_continue` names. */
  limit?: number;
  _continue?: string;
}

export type Method =
  | 'getClusterCustomObject'
  | 'getNamespacedCustomObject'
  | 'patchClusterCustomObjectStatus'
  | 'listNamespacedCustomObject'
  | 'patchNamespacedCustomObjectStatus';

/** An API server of objects by plural/namespace/name; `fault` may answer a call instead of it. */
export class FakeApi {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: { method: Method; params: Params }[] = [];
  fault?: (method: Method, params: Params) => Error | undefined;
  /** Resolved before each Workload list answers (to make two controllers read before either writes). */
  beforeList?: () => Promise<void>;
  /** Runs as each call is served, before it is: another writer's change lands just before it. */
  beforeServe?: (method: Method, params: Params) => void;
  /** Runs right after a write applied, before its answer: another writer's change lands next. */
  afterWrite?: (params: Params, written: KubeObject) => void;
  private rv = 1000;

  put(plural: string, object: KubeObject): void {
    const { namespace, name } = object.metadata ?? {};
    this.objects.set(`${plural}/${namespace ?? ''}/${name}`, { ...object, metadata: { ...object.metadata, resourceVersion: String(this.rv++) } });
  }

  get(plural: string, namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(`${plural}/${namespace}/${name}`);
  }

  private answer<T>(method: Method, params: Params, work: () => T): Promise<T> {
    this.calls.push({ method, params });
    const fault = this.fault?.(method, params);
    return fault
      ? Promise.reject(fault)
      : Promise.resolve().then(() => {
          this.beforeServe?.(method, params);
          return work();
        });
  }

  private patch(params: Params): KubeObject {
    const current = this.get(params.plural, params.namespace ?? '', params.name ?? '');
    if (!current) throw apiError(404, `${params.name} not found`, 'NotFound');
    let next: KubeObject;
    try {
      next = applyJsonPatch(current, params.body ?? []);
    } catch (error) {
      if (error instanceof JsonPatchError) throw apiError(422, PATCH_NOT_APPLIED);
      throw error;
    }
    this.put(params.plural, next);
    const written = this.get(params.plural, params.namespace ?? '', params.name ?? '') as KubeObject;
    this.afterWrite?.(params, written);
    return written;
  }

  /** Another writer's JSON patch of an object (a Hold, Kueue), applied unconditionally. */
  edit(plural: string, namespace: string, name: string, edit: (object: KubeObject) => KubeObject): void {
    const current = this.get(plural, namespace, name);
    if (!current) throw new Error(`${plural}/${namespace}/${name} not found`);
    this.put(plural, edit(structuredClone(current)));
  }

  readonly custom = {
    getClusterCustomObject: (p: Params) =>
      this.answer('getClusterCustomObject', p, () => {
        const found = this.get(p.plural, '', p.name ?? '');
        if (!found) throw apiError(404, `${p.name} not found`, 'NotFound');
        return found;
      }),
    getNamespacedCustomObject: (p: Params) =>
      this.answer('getNamespacedCustomObject', p, () => {
        const found = this.get(p.plural, p.namespace ?? '', p.name ?? '');
        if (!found) throw apiError(404, `${p.name} not found`, 'NotFound');
        return structuredClone(found);
      }),
    patchClusterCustomObjectStatus: (p: Params) => this.answer('patchClusterCustomObjectStatus', p, () => this.patch(p)),
    patchNamespacedCustomObjectStatus: (p: Params) => this.answer('patchNamespacedCustomObjectStatus', p, () => this.patch(p)),
    listNamespacedCustomObject: async (p: Params) => {
      if (p.plural === 'workloads') await this.beforeList?.();
      return this.answer('listNamespacedCustomObject', p, () => {
        const all = [...this.objects.entries()]
          .filter(([key]) => key.startsWith(`${p.plural}/${p.namespace}/`))
          .map(([, o]) => o)
          .filter((o) => matches(o, p.labelSelector ?? ''));
        const from = Number(p._continue ?? 0);
        const to = p.limit === undefined ? all.length : from + p.limit;
        return { items: all.slice(from, to), metadata: { resourceVersion: String(this.rv), ...(to < all.length ? { continue: String(to) } : {}) } };
      });
    },
  };

  kube(): KubeClients {
    return { custom: this.custom } as unknown as KubeClients;
  }
}

/** `key` (exists) or `key=value`, the two forms the controller uses. */
function matches(object: KubeObject, selector: string): boolean {
  if (!selector) return true;
  const [key, value] = selector.split('=') as [string, string | undefined];
  const label = object.metadata?.labels?.[key];
  return value === undefined ? label !== undefined : label === value;
}

export const admissionCheck = (controllerName = CONTROLLER): KubeObject => ({
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'AdmissionCheck',
  metadata: { name: CHECK, uid: 'ac-uid', generation: 1 },
  spec: { controllerName },
});

/** dispatch's AdmissionCheck, and Workloads a..e: only `a` and `b` are to be marked Ready. */
export function cluster(): FakeApi {
  const api = new FakeApi();
  api.put('admissionchecks', admissionCheck());
  const job = (name: string, uid: string, shape: Parameters<typeof trainJob>[0] = {}) =>
    api.put('trainjobs', { ...trainJob({ uid, ...shape }), metadata: { ...trainJob({ uid, ...shape }).metadata, name } });
  const wl = (name: string, uid: string, shape: Parameters<typeof workload>[0] = {}) =>
    api.put('workloads', { ...workload({ name, jobUid: uid, check: 'Pending', conditions: [RESERVED], ...shape }), metadata: { ...workload({ name, jobUid: uid }).metadata, uid: `wl-${name}` } });
  job('job-a', 'uid-a');
  job('job-b', 'uid-b');
  job('job-c', 'uid-c', { held: 'true' });
  job('job-d', 'uid-d');
  wl('wl-a', 'uid-a');
  wl('wl-b', 'uid-b');
  wl('wl-c', 'uid-c'); // held
  wl('wl-d', 'uid-d', { conditions: [] }); // no quota reserved
  wl('wl-e', 'uid-e'); // no TrainJob of dispatch's
  return api;
}

export const checkState = (api: FakeApi, name: string) =>
  ((api.get('workloads', NS, name) as Workload).status?.admissionChecks ?? []).find((c) => c.name === CHECK)?.state;
export const activeCondition = (api: FakeApi) =>
  ((api.get('admissionchecks', '', CHECK) as { status?: { conditions?: { type: string }[] } }).status?.conditions ?? []).find((c) => c.type === 'Active');
