// An in-memory API server for namespaced custom objects, enough for the activities' creates, gets
// and deletes by UID precondition, gets of cluster-scoped objects (put with no namespace), and pod
// lists: 409 on a name taken, 404 on a name free, 409 on a precondition
// that does not hold. `silent` makes every call go unanswered (a refused connection); `refuse`
// answers every create with that refusal.
import { ApiException } from '@kubernetes/client-node';
import type { KubeClients } from '../../../../src/kube/clients.js';
import type { KubeObject } from '../../../../src/model/kube.js';

interface Params {
  plural: string;
  namespace: string;
  name?: string;
  body?: unknown;
}

const status = (code: number, reason: string) => new ApiException(code, reason, { reason, message: `${reason} (fake)` }, {});

export class FakeCluster {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: string[] = [];
  silent = false;
  refuse: ApiException<unknown> | undefined;
  /** What its SelfSubjectAccessReviews deny, as "<verb> <resource>" (the rest is allowed). */
  readonly denied = new Set<string>();
  /** The creationTimestamp of what is created or put without one. */
  createdAt = '2026-01-01T00:00:00Z';
  private uids = 0;

  constructor(readonly name: string) {}

  private key = (p: Params, name = p.name ?? '') => `${p.plural}/${p.namespace}/${name}`;

  private answer<T>(what: string, fn: () => T): Promise<T> {
    this.calls.push(what);
    if (this.silent) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    try {
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Puts an object there as another party made it. */
  put(plural: string, object: KubeObject): KubeObject {
    this.uids += 1;
    const stored = { ...object, metadata: { creationTimestamp: this.createdAt, ...object.metadata, uid: `${this.name}-uid-${this.uids}`, resourceVersion: String(this.uids) } };
    this.objects.set(`${plural}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`, stored);
    return stored;
  }

  get(plural: string, namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(`${plural}/${namespace}/${name}`);
  }

  /** The objects of a kind in a namespace with a label `key=value` or `key in (a,b)` (batched lists), or all. */
  private list(plural: string, namespace: string, selector = '') {
    const set = /^(\S+) in \((.*)\)$/.exec(selector);
    const [key, values] = set ? [set[1], set[2]!.split(',')] : [selector.split('=')[0], [selector.split('=')[1]]];
    const items = [...this.objects.entries()]
      .filter(([k, o]) => k.startsWith(`${plural}/${namespace}/`) && (!key || values.includes(o.metadata?.labels?.[key] ?? '\u0000')))
      .map(([, o]) => o);
    return { items, metadata: { resourceVersion: String(this.uids) } };
  }

  get kube(): KubeClients {
    const custom = {
      createNamespacedCustomObject: (p: Params) =>
        this.answer(`create ${p.plural}`, () => {
          if (this.refuse) throw this.refuse;
          const body = p.body as KubeObject;
          if (this.objects.has(this.key(p, body.metadata?.name))) throw status(409, 'AlreadyExists');
          return this.put(p.plural, body);
        }),
      getNamespacedCustomObject: (p: Params) =>
        this.answer(`get ${p.plural}`, () => {
          const found = this.objects.get(this.key(p));
          if (!found) throw status(404, 'NotFound');
          return found;
        }),
      listNamespacedCustomObject: (p: Params & { labelSelector?: string }) => this.answer(`list ${p.plural}`, () => this.list(p.plural, p.namespace, p.labelSelector)),
      getClusterCustomObject: (p: { plural: string; name: string }) =>
        this.answer(`get ${p.plural}`, () => {
          const found = this.objects.get(`${p.plural}//${p.name}`);
          if (!found) throw status(404, 'NotFound');
          return found;
        }),
      deleteNamespacedCustomObject: (p: Params & { body: { preconditions: { uid: string; resourceVersion?: string } } }) =>
        this.answer(`delete ${p.plural}`, () => {
          const found = this.objects.get(this.key(p));
          if (!found) throw status(404, 'NotFound');
          const { uid, resourceVersion } = p.body.preconditions;
          if (found.metadata?.uid !== uid || (resourceVersion !== undefined && found.metadata?.resourceVersion !== resourceVersion)) throw status(409, 'Conflict');
          this.objects.delete(this.key(p));
          return {};
        }),
    };
    const core = {
      listNamespacedPod: (p: { namespace: string; labelSelector?: string }) => this.answer('list pods', () => this.list('pods', p.namespace, p.labelSelector)),
    };
    const authorization = {
      createSelfSubjectAccessReview: (p: { body: { spec: { resourceAttributes: { verb: string; resource: string } } } }) => {
        const { verb, resource } = p.body.spec.resourceAttributes;
        return this.answer(`review ${verb} ${resource}`, () => {
          if (this.refuse) throw this.refuse;
          return { ...p.body, status: { allowed: !this.denied.has(`${verb} ${resource}`) } };
        });
      },
    };
    return { custom, core, authorization, server: this.name } as unknown as KubeClients;
  }
}
