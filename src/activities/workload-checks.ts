// Step 9's checks, batched across the Starts one worker is waiting for. Each waiting Start still
// checks its Workload every second; the checks that fall within one short window go out as one
// list with a set-based label selector (at most MAX_UIDS TrainJob UIDs each). So a worker waiting
// for 1,000 Workloads lists ~20 times a second instead of 1,000, and a lone Start's first check
// waits at most WINDOW_MS. docs/performance.md has the before/after figures.
import { Labels } from '../model/constants.js';
import type { Workload } from '../model/kube.js';
import type { KubeAnswer } from './kube-call.js';
import type { KubeClients } from './kube-clients.js';
import { ObjectCalls, workloads } from './objects.js';

/** How long a check waits for others to share its list. */
export const WINDOW_MS = 50;
/** UIDs in one list's selector: 100 keep its URL under 4 KB. */
export const MAX_UIDS = 100;

interface Waiter {
  resolve(answer: KubeAnswer<Workload | undefined>): void;
  reject(error: unknown): void;
}

interface Batch {
  namespace: string;
  version: string;
  waiters: Map<string, Waiter[]>;
}

/** `kueue.x-k8s.io/job-uid in (<uid>,...)`: the Workloads of these TrainJobs. */
export const workloadsOfSelector = (uids: readonly string[]) =>
  `${Labels.kueueJobUid} in (${uids.join(',')})`;

export class WorkloadChecks {
  private readonly calls: ObjectCalls;
  /** The batch filling up for each namespace and Workload version. */
  private readonly filling = new Map<string, Batch>();

  constructor(kube: KubeClients, requestTimeoutMs: number) {
    // Bound by the request timeout only: one Start's cancellation must not abort the others' list.
    this.calls = new ObjectCalls(kube, { requestTimeoutMs });
  }

  /**
   * The Workload labelled with this TrainJob's UID (the first, as a list of it alone would
   * answer), or the list's definite refusal. Rejects as the list does when it goes unanswered, or
   * when `signal` aborts first.
   */
  check(
    namespace: string,
    version: string,
    uid: string,
    signal?: AbortSignal,
  ): Promise<KubeAnswer<Workload | undefined>> {
    const key = `${namespace}\0${version}`;
    let batch = this.filling.get(key);
    if (!batch) {
      const started: Batch = { namespace, version, waiters: new Map() };
      this.filling.set(key, started);
      setTimeout(() => this.flush(key, started), WINDOW_MS);
      batch = started;
    }
    const answer = new Promise<KubeAnswer<Workload | undefined>>((resolve, reject) => {
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
      batch.waiters.set(uid, [...(batch.waiters.get(uid) ?? []), waiter]);
      signal?.addEventListener('abort', abort, { once: true });
    });
    if (batch.waiters.size >= MAX_UIDS) this.flush(key, batch);
    return answer;
  }

  private flush(key: string, batch: Batch): void {
    if (this.filling.get(key) !== batch) return; // already flushed (it filled up)
    this.filling.delete(key);
    const uids = [...batch.waiters.keys()];
    for (let i = 0; i < uids.length; i += MAX_UIDS) void this.list(batch, uids.slice(i, i + MAX_UIDS));
  }

  private async list(batch: Batch, uids: string[]): Promise<void> {
    const waitersOf = (uid: string) => batch.waiters.get(uid) ?? [];
    let answer: KubeAnswer<{ items?: Workload[] }>;
    try {
      answer = (await this.calls.list(
        workloads(batch.version),
        batch.namespace,
        workloadsOfSelector(uids),
      )) as KubeAnswer<{
        items?: Workload[];
      }>;
    } catch (error) {
      for (const uid of uids) for (const waiter of waitersOf(uid)) waiter.reject(error);
      return;
    }
    if (answer.answered === 'definite') {
      for (const uid of uids) for (const waiter of waitersOf(uid)) waiter.resolve(answer);
      return;
    }
    const items = answer.value.items ?? [];
    for (const uid of uids) {
      const workload = items.find((item) => item.metadata?.labels?.[Labels.kueueJobUid] === uid);
      for (const waiter of waitersOf(uid)) waiter.resolve({ answered: 'ok', value: workload });
    }
  }
}
