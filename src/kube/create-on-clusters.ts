// One object created (or adopted, as the caller's rule decides) on several clusters at once, each
// through its own calls: what each cluster answered, never thrown. A cluster that leaves the create
// unanswered is asked again, with pauses, until the deadline; it is then reported unanswered, with
// what its last call said. The caller decides what the answers mean (for Start's step 5 with
// MultiKueue: src/core/start/worker-copies.ts).
import type { DecideConflict } from '../core/objects/create-decision.js';
import type { KubeObject } from '../model/kube.js';
import { KubeUnanswered } from './call.js';
import { createOrAdopt, type AnsweredCreate, type CreateWaits } from './create-or-adopt.js';
import type { NamespacedKind, ObjectCalls } from './objects.js';

/** A cluster's calls, under the name its answers carry. */
export interface ClusterCalls {
  cluster: string;
  calls: ObjectCalls;
}

export type ClusterCreate = { cluster: string } & (AnsweredCreate | { do: 'unanswered'; reason: string });

/** How long the clusters are asked, and how they wait between two asks. */
export interface ClusterWaits extends CreateWaits {
  /** When (Date.now()) an unanswered cluster is given up on. */
  deadline: number;
}

/** The pause after the `n`-th unanswered create (1-based): 200 ms, doubling, at most 2 s. */
export const unansweredPauseMs = (n: number) => Math.min(2_000, 200 * 2 ** (n - 1));

/** Creates `body` on each cluster at once (createOrAdopt with `decide`), answering for each. */
export function createOnClusters(clusters: readonly ClusterCalls[], kind: NamespacedKind, body: KubeObject, decide: DecideConflict, waits: ClusterWaits): Promise<ClusterCreate[]> {
  return Promise.all(clusters.map((cluster) => createOnCluster(cluster, kind, body, decide, waits)));
}

async function createOnCluster({ cluster, calls }: ClusterCalls, kind: NamespacedKind, body: KubeObject, decide: DecideConflict, waits: ClusterWaits): Promise<ClusterCreate> {
  for (let unanswered = 1; ; unanswered += 1) {
    try {
      return { cluster, ...(await createOrAdopt(calls, kind, body, decide, waits)) };
    } catch (error) {
      if (!(error instanceof KubeUnanswered)) throw error;
      const pauseMs = unansweredPauseMs(unanswered);
      if (Date.now() + pauseMs >= waits.deadline) return { cluster, do: 'unanswered', reason: error.message };
      await waits.pause(pauseMs, { waitingFor: `cluster ${cluster} to answer` });
    }
  }
}
