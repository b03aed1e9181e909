// What a Start ended with, and the invariant every reliability test checks on the cluster
// afterwards: a Start that succeeded left exactly one TrainJob (its UID the result's) and exactly
// one runtime copy, owned by that TrainJob; a Start that failed left nothing of its job once the
// garbage collector has had its turn.
import type { WorkflowHandle } from '@temporalio/client';
import { expect } from 'vitest';
import type { KubeClients } from '../../../src/kube/clients.js';
import { typed } from '../../../src/client/dispatch-client.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { StartResult } from '../../../src/model/results.js';
import { describeJobObjects, eventually, objectsOfJob, type JobObjects } from './lab.js';

export type Outcome =
  { ok: true; result: StartResult; ms: number } | { ok: false; error: unknown; ms: number };

/** Waits for a Start's result; never throws. `ms` counts from `since` (default: now). */
export async function outcomeOf(
  handle: Pick<WorkflowHandle, 'result'>,
  since = Date.now(),
): Promise<Outcome> {
  try {
    const result = (await handle.result()) as StartResult;
    return { ok: true, result, ms: Date.now() - since };
  } catch (error) {
    return { ok: false, error: typed(error), ms: Date.now() - since };
  }
}

/** "started <ref>" or "<type> at step <n>: <reasons>", for messages and figures. */
export function describeOutcome(outcome: Outcome): string {
  if (outcome.ok) return `started ${outcome.result.ref}`;
  const e = outcome.error;
  return e instanceof DispatchError
    ? `${e.type} at step ${e.step}: ${e.reasons.join('; ')}`
    : `untyped failure: ${String(e)}`;
}

/** The typed failure of an outcome; fails the test when the Start succeeded or failed untyped. */
export function failureOf(outcome: Outcome): DispatchError {
  if (outcome.ok) throw new Error(`expected the Start to fail; it ${describeOutcome(outcome)}`);
  expect(outcome.error, describeOutcome(outcome)).toBeInstanceOf(DispatchError);
  return outcome.error as DispatchError;
}

/** Whether the job's objects are exactly what the outcome allows (see the file's head). */
export function objectsMatch(outcome: Outcome, objects: JobObjects): boolean {
  if (!outcome.ok) return objects.trainJobs.length === 0 && objects.copies.length === 0;
  const [trainJob, ...moreJobs] = objects.trainJobs;
  const [copy, ...moreCopies] = objects.copies;
  return (
    trainJob !== undefined &&
    moreJobs.length === 0 &&
    !trainJob.metadata?.deletionTimestamp &&
    trainJob.metadata?.uid === outcome.result.uid &&
    copy !== undefined &&
    moreCopies.length === 0 &&
    !copy.metadata?.deletionTimestamp &&
    copy.metadata?.name === outcome.result.runtimeCopy &&
    JSON.stringify((copy.metadata?.ownerReferences ?? []).map((o) => o.uid)) ===
      JSON.stringify([outcome.result.uid])
  );
}

/**
 * Asserts the invariant for one job, waiting up to `settleMs` for deletions and the garbage
 * collector. Returns what was found and how long it took to settle.
 */
export async function expectJobObjects(
  kube: KubeClients,
  namespace: string,
  jobId: string,
  outcome: Outcome,
  settleMs = 30_000,
): Promise<{ objects: JobObjects; settledMs: number }> {
  const t0 = Date.now();
  let objects: JobObjects = { trainJobs: [], copies: [] };
  await eventually(
    async () => {
      objects = await objectsOfJob(kube, namespace, jobId);
      return objectsMatch(outcome, objects);
    },
    settleMs,
    250,
  );
  expect(
    objectsMatch(outcome, objects),
    `${describeOutcome(outcome)}; found ${describeJobObjects(objects)}`,
  ).toBe(true);
  return { objects, settledMs: Date.now() - t0 };
}
