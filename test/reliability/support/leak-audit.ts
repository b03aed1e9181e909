// The leak audit: every TrainJob and TrainingRuntime labelled app.kubernetes.io/managed-by=dispatch,
// compared with what the tests expect to exist. Objects being deleted, and copies whose owner is
// gone (the garbage collector's business), are given time to go before they count as leaks.
import type { KubeClients } from '../../../src/kube/clients.js';
import { Labels, LabelValues, Trainer } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';

export interface ManagedObject {
  kind: 'TrainJob' | 'TrainingRuntime';
  namespace: string;
  name: string;
  uid: string;
  /** UIDs of its owners (a runtime copy's is its TrainJob). */
  owners: string[];
  deleting: boolean;
}

/** An object a test means to leave: kind and name in a namespace. */
export interface Expected {
  kind: ManagedObject['kind'];
  namespace: string;
  name: string;
}

export const MANAGED_BY_DISPATCH = `${Labels.managedBy}=${LabelValues.managedBy}`;

const KINDS = [
  { kind: 'TrainJob', plural: Trainer.trainJobPlural },
  { kind: 'TrainingRuntime', plural: Trainer.trainingRuntimePlural },
] as const;

/** Every object labelled managed-by=dispatch, in one namespace or (without one) in all of them. */
export async function managedObjects(kube: KubeClients, namespace?: string): Promise<ManagedObject[]> {
  const found: ManagedObject[] = [];
  for (const { kind, plural } of KINDS) {
    const at = { group: Trainer.group, version: Trainer.version, plural, labelSelector: MANAGED_BY_DISPATCH };
    const list = (
      namespace
        ? await kube.custom.listNamespacedCustomObject({ ...at, namespace })
        : await kube.custom.listClusterCustomObject(at)
    ) as { items: KubeObject[] };
    for (const item of list.items) {
      const meta = item.metadata ?? {};
      found.push({
        kind,
        namespace: meta.namespace ?? '',
        name: meta.name ?? '',
        uid: meta.uid ?? '',
        owners: (meta.ownerReferences ?? []).map((o) => o.uid),
        deleting: meta.deletionTimestamp !== undefined,
      });
    }
  }
  return found;
}

const isExpected = (object: ManagedObject, expected: readonly Expected[]) =>
  expected.some((e) => e.kind === object.kind && e.namespace === object.namespace && e.name === object.name);

export const describeObject = (o: ManagedObject) =>
  `${o.kind} ${o.namespace}/${o.name}${o.deleting ? ' (being deleted)' : ''}${o.owners.length ? ` owned by ${o.owners.join(',')}` : ' (no owner)'}`;

/**
 * The managed objects that are not expected, once the garbage collector and pending deletions
 * have had up to `settleMs` to remove them. Empty when nothing leaked.
 */
export async function unexpectedObjects(
  kube: KubeClients,
  expected: readonly Expected[],
  options: { namespace?: string; settleMs?: number } = {},
): Promise<ManagedObject[]> {
  const deadline = Date.now() + (options.settleMs ?? 30_000);
  for (;;) {
    const left = (await managedObjects(kube, options.namespace)).filter((o) => !isExpected(o, expected));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Deletes the expected objects (Background), so that a later audit finds nothing of the test's. */
export async function removeExpected(kube: KubeClients, expected: readonly Expected[]): Promise<void> {
  for (const e of expected) {
    const plural = e.kind === 'TrainJob' ? Trainer.trainJobPlural : Trainer.trainingRuntimePlural;
    await kube.custom
      .deleteNamespacedCustomObject({
        group: Trainer.group,
        version: Trainer.version,
        plural,
        namespace: e.namespace,
        name: e.name,
        propagationPolicy: 'Background',
      })
      .catch((error: { code?: number }) => {
        if (error.code !== 404) throw error;
      });
  }
}

/**
 * A test file's ledger of what it leaves on purpose. `audit()` fails (throws, naming each object)
 * when anything else labelled managed-by=dispatch remains in the namespace, then removes what was
 * expected, so that the run's final audit (leak-audit.setup.ts) finds nothing.
 */
export class LeakLedger {
  readonly expected: Expected[] = [];
  constructor(
    private readonly kube: KubeClients,
    readonly namespace: string,
  ) {}

  /** A successful Start leaves its TrainJob and its copy. */
  expectStarted(name: string): void {
    this.expected.push(
      { kind: 'TrainJob', namespace: this.namespace, name },
      { kind: 'TrainingRuntime', namespace: this.namespace, name },
    );
  }

  expect(kind: Expected['kind'], name: string): void {
    this.expected.push({ kind, namespace: this.namespace, name });
  }

  /** Throws naming every unexpected object, after letting deletions settle; removes the expected ones. */
  async audit(settleMs = 30_000): Promise<{ checked: number }> {
    const left = await unexpectedObjects(this.kube, this.expected, { namespace: this.namespace, settleMs });
    if (left.length > 0)
      throw new Error(
        `leak audit of namespace ${this.namespace}: ${left.length} unexpected object(s): ${left.map(describeObject).join('; ')}`,
      );
    const checked = (await managedObjects(this.kube, this.namespace)).length;
    await removeExpected(this.kube, this.expected);
    return { checked };
  }
}
