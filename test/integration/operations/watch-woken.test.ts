// Watch woken by the workers' watches (docs/contract.md §9b) on the real stack, with two workers
// on the namespace, each running its waker: the Watch answers once, each change of its TrainJob
// wakes it at most once per worker, and the Outcome comes within about a second or two of the
// TrainJob's Complete condition (measured and printed; timing is never asserted here: the figures
// come from the bench).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { operationWorkflowId } from '../../../src/contract/names.js';
import { TRAINJOBS } from '../../../src/kube/objects.js';
import { Labels, TrainJobConditions } from '../../../src/model/constants.js';
import type { Condition } from '../../../src/model/kube.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';
import { readTrainJob, refOf } from './support.js';

let ns: TestNamespace;
let h1: DispatchHarness;
let h2: DispatchHarness;

beforeAll(async () => {
  ns = await freshNamespace('lc-woken');
  [h1, h2] = await Promise.all([
    startDispatch({ namespace: ns.name, config: {} }),
    startDispatch({ namespace: ns.name, config: {} }),
  ]);
});
afterAll(async () => {
  await Promise.all([h1?.close(), h2?.close()]);
  await ns?.dispose();
});

const signalled = async (h: DispatchHarness) =>
  (await h.worker.metrics.watchWakes.get()).values.find((v) => v.labels.result === 'signalled')?.value ?? 0;

it('two workers: the Watch answers once, woken at most once per worker per change of its TrainJob, soon after its Complete condition', async () => {
  // Every change of a TrainJob each worker's watch sees, from before the Start: a wake of a change
  // made during the Start can reach the Watch after it has begun, so it must be counted too.
  const heard = [h1, h2].map(() => new Map<string, Set<string>>());
  const unsubscribes = [h1, h2].map((h, i) =>
    h.worker.checks!.subscribe(TRAINJOBS, ns.name, Labels.jobId, (c) => {
      const uid = c.object.metadata?.uid;
      if (!uid) return;
      const versions = heard[i]!.get(uid) ?? new Set<string>();
      versions.add(c.object.metadata?.resourceVersion ?? '');
      heard[i]!.set(uid, versions);
    }),
  );
  const unsubscribe = () => unsubscribes.forEach((u) => u());
  const ref = refOf(await h1.client.startTrainJob(startRequest()));
  try {
    const watching = h1.client.watch(ref);
    await h1.client.open(ref);
    const outcome = await watching;
    expect(outcome).toMatchObject({ ref, phase: 'Succeeded' });

    const handle = h1.env.client.workflow.getHandle(operationWorkflowId('watch', ref));
    const described = await handle.describe();
    const events = (await handle.fetchHistory()).events ?? [];
    const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    const reads =
      events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length - 1;
    const closed = events.filter((e) => e.workflowExecutionCompletedEventAttributes).length;
    const complete = (
      (await readTrainJob(h1.kube, ref))?.status as { conditions?: Condition[] } | undefined
    )?.conditions?.find((c) => c.type === TrainJobConditions.complete);
    const afterComplete =
      described.closeTime && complete?.lastTransitionTime
        ? described.closeTime.getTime() - Date.parse(complete.lastTransitionTime)
        : undefined;
    const [seenBy1, seenBy2] = heard.map((m) => m.get(ref.uid)?.size ?? 0) as [number, number];
    const versions = new Set([...(heard[0]!.get(ref.uid) ?? []), ...(heard[1]!.get(ref.uid) ?? [])]);
    console.log(
      `[watch] two workers: ${versions.size} changes of the TrainJob (${seenBy1} heard by worker 1, ${seenBy2} by worker 2), ${signals} wakes, ${reads} reads; Outcome ${afterComplete} ms after the Complete condition's time (to the second); wakes signalled by worker 1: ${await signalled(h1)}, worker 2: ${await signalled(h2)}`,
    );
    expect(closed).toBe(1);
    expect(signals).toBeGreaterThan(0);
    // At most one wake per change per worker: each worker's wakes are bounded by the changes it heard.
    expect(signals).toBeLessThanOrEqual(seenBy1 + seenBy2);
    // Both wakers took part: each worker signalled at least one wake.
    expect(await signalled(h1)).toBeGreaterThan(0);
    expect(await signalled(h2)).toBeGreaterThan(0);
    // Woken, not timed out: far inside the 15-minute timer.
    expect(afterComplete).toBeLessThan(60_000);
  } finally {
    unsubscribe();
  }
}, 180_000);
