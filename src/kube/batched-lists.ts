// Checks batched across the activities of one worker: the Workload waits of Start's step 9 and the
// Watches of running TrainJobs each check their object every few seconds; the checks that fall
// within one short window go out as one list with a set-based label selector (`<label> in (...)`,
// at most MAX_VALUES values each). So a worker with 1,000 checks in flight lists ~10 times a round
// instead of 1,000, and a lone check waits at most WINDOW_MS for company. docs/performance.md has
// the figures.
import type { KubeObject } from '../model/kube.js';
import type { KubeAnswer } from './call.js';
import type { KubeClients } from './clients.js';
import { ObjectCalls, type NamespacedKind } from './objects.js';

/** How long a check waits for others to share its list. */
export const WINDOW_MS = 50;
/** Values in one list's selector: 100 UIDs keep its URL under 4 KB. */
export const MAX_VALUES = 100;

interface Waiter {
  resolve(answer: KubeAnswer<KubeObject[]>): void;
  reject(error: unknown): void;
}

interface Batch {
  kind: NamespacedKind;
  namespace: string;
  label: string;
  waiters: Map<string, Waiter[]>;
}

/** `<label> in (<value>,...)`. */
export const labelInSelector = (label: string, values: readonly string[]) => `${label} in (${values.join(',')})`;

export class BatchedLists {
  private readonly calls: ObjectCalls;
  /** The batch filling up for each kind, namespace and label. */
  private readonly filling = new Map<string, Batch>();

  constructor(kube: KubeClients, requestTimeoutMs: number) {
    // Bound by the request timeout only: one activity's cancellation must not abort the others' list.
    this.calls = new ObjectCalls(kube, { requestTimeoutMs });
  }

  /**
   * The objects of `kind` in `namespace` whose `label` is `value`, in the list's order, or the
   * list's definite refusal. Rejects as the list does when it goes unanswered, or when `signal`
   * aborts first.
   */
  find(kind: NamespacedKind, namespace: string, label: string, value: string, signal?: AbortSignal): Promise<KubeAnswer<KubeObject[]>> {
    const key = [kind.group, kind.version, kind.plural, namespace, label].join('\0');
    let batch = this.filling.get(key);
    if (!batch) {
      const started: Batch = { kind, namespace, label, waiters: new Map() };
      this.filling.set(key, started);
      setTimeout(() => this.flush(key, started), WINDOW_MS);
      batch = started;
    }
    const answer = new Promise<KubeAnswer<KubeObject[]>>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const abort = () => reject(signal?.reason);
      // The listener goes with the answer: a wait checks thousands of times on one signal.
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T) => {
          signal?.removeEventListener('abort', abort);
          fn(value);
        };
      const waiter: Waiter = { resolve: settle(resolve), reject: settle(reject) };
      batch.waiters.set(value, [...(batch.waiters.get(value) ?? []), waiter]);
      signal?.addEventListener('abort', abort, { once: true });
    });
    if (batch.waiters.size >= MAX_VALUES) this.flush(key, batch);
    return answer;
  }

  private flush(key: string, batch: Batch): void {
    if (this.filling.get(key) !== batch) return; // already flushed (it filled up)
    this.filling.delete(key);
    const values = [...batch.waiters.keys()];
    for (let i = 0; i < values.length; i += MAX_VALUES) void this.list(batch, values.slice(i, i + MAX_VALUES));
  }

  private async list(batch: Batch, values: string[]): Promise<void> {
    const waitersOf = (value: string) => batch.waiters.get(value) ?? [];
    let answer: KubeAnswer<{ items?: KubeObject[] }>;
    try {
      answer = await this.calls.list(batch.kind, batch.namespace, labelInSelector(batch.label, values));
    } catch (error) {
      for (const value of values) for (const waiter of waitersOf(value)) waiter.reject(error);
      return;
    }
    if (answer.answered === 'definite') {
      for (const value of values) for (const waiter of waitersOf(value)) waiter.resolve(answer);
      return;
    }
    const items = answer.value.items ?? [];
    for (const value of values) {
      const mine = items.filter((item) => item.metadata?.labels?.[batch.label] === value);
      for (const waiter of waitersOf(value)) waiter.resolve({ answered: 'ok', value: mine });
    }
  }
}
