// The exit code's rule on its own (src/core/operations/node-failures.ts): the first `node`
// container of the job's pods that terminated non-zero, by finishedAt then pod name, whatever the
// order the pods come in, and the same when part of them is known only as failures remembered from
// earlier (a worker's memory of a worker cluster's pods, src/worker/exit-code-memory.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareFailures,
  failuresToRemember,
  firstFailure,
  nodeFailuresOf,
  nodeFailuresOfPod,
  type NodeFailure,
} from '../../../../src/core/operations/node-failures.js';
import { exitCodeOf } from '../../../../src/core/operations/watch-outcome.js';
import { Labels } from '../../../../src/model/constants.js';
import { JOB_ID, pod, T0, T1, trainJob } from '../operation-fixtures.js';
import { arbPod } from '../pod-arbitraries.js';

const JOB = { jobId: JOB_ID, submission: '12' };

/** A minute of whole seconds (Kubernetes writes finishedAt to the second): ties are common. */
const arbFailure: fc.Arbitrary<NodeFailure> = fc.record(
  { pod: fc.constantFrom('p-a', 'p-b', 'p-c'), exitCode: fc.integer({ min: 1, max: 3 }), finishedAt: fc.constantFrom(T0, T1, '2026-01-01T00:00:01Z') },
  { requiredKeys: ['pod', 'exitCode'] },
);

describe('the rule of the first failed node container', () => {
  it('compareFailures is a total order: reflexive, antisymmetric, transitive', () => {
    fc.assert(
      fc.property(arbFailure, arbFailure, arbFailure, (a, b, c) => {
        expect(compareFailures(a, a)).toBe(0);
        expect(Math.sign(compareFailures(a, b))).toBe(0 - Math.sign(compareFailures(b, a)));
        if (compareFailures(a, b) === 0) expect(a).toEqual(b);
        if (compareFailures(a, b) <= 0 && compareFailures(b, c) <= 0) expect(compareFailures(a, c)).toBeLessThanOrEqual(0);
      }),
    );
  });

  it('firstFailure is one of the failures and no other comes before it', () => {
    fc.assert(
      fc.property(fc.array(arbFailure, { maxLength: 8 }), (failures) => {
        const first = firstFailure(failures);
        if (failures.length === 0) {
          expect(first).toBeUndefined();
          return;
        }
        expect(failures).toContain(first);
        for (const f of failures) expect(compareFailures(first!, f)).toBeLessThanOrEqual(0);
      }),
    );
  });

  it('exitCodeOf does not depend on the order of the pods', () => {
    fc.assert(
      fc.property(fc.array(arbPod, { maxLength: 6 }), fc.infiniteStream(fc.nat()), (pods, seeds) => {
        const shuffled = [...pods].sort(() => (seeds.next().value % 3) - 1);
        expect(exitCodeOf(trainJob(), shuffled)).toBe(exitCodeOf(trainJob(), pods));
      }),
    );
  });

  it('exitCodeOf of some pods with the failures of the others known is exitCodeOf of all of them (what the memory relies on)', () => {
    fc.assert(
      fc.property(fc.array(arbPod, { maxLength: 6 }), fc.array(arbPod, { maxLength: 6 }), (listed, gone) => {
        const known = nodeFailuresOf(JOB, gone);
        expect(exitCodeOf(trainJob(), listed, known)).toBe(exitCodeOf(trainJob(), [...listed, ...gone]));
        // A known first failure alone, as the memory keeps it, decides the same.
        const first = firstFailure(known);
        expect(exitCodeOf(trainJob(), listed, first ? [first] : [])).toBe(exitCodeOf(trainJob(), [...listed, ...gone]));
      }),
    );
  });

  it('a pod\'s failures: its node container\'s current and earlier run, non-zero only', () => {
    expect(nodeFailuresOfPod(pod('p', { exitCode: 1, finishedAt: T1, lastExitCode: 125, lastFinishedAt: T0 }))).toEqual([
      { pod: 'p', exitCode: 1, finishedAt: T1 },
      { pod: 'p', exitCode: 125, finishedAt: T0 },
    ]);
    expect(nodeFailuresOfPod(pod('p', { exitCode: 0, finishedAt: T0 }))).toEqual([]);
    expect(nodeFailuresOfPod(pod('p', { exitCode: 2 }))).toEqual([{ pod: 'p', exitCode: 2 }]);
  });
});

describe('failuresToRemember', () => {
  it("a pod's job and failures; nothing for a pod without failures or without both labels", () => {
    expect(failuresToRemember(pod('p', { exitCode: 125, finishedAt: T0 }))).toEqual({ job: JOB, failures: [{ pod: 'p', exitCode: 125, finishedAt: T0 }] });
    expect(failuresToRemember(pod('p', { exitCode: 0, finishedAt: T0 }))).toBeUndefined();
    expect(failuresToRemember(pod('p', { exitCode: 1 }, { [Labels.jobId]: JOB_ID }))).toBeUndefined();
  });

  it('nothing for a pod being deleted: its containers end because it is deleted (eviction, Stop, MultiKueue), not of themselves', () => {
    const deleting = pod('p', { exitCode: 137, finishedAt: T0 });
    deleting.metadata!.deletionTimestamp = T0;
    expect(failuresToRemember(deleting)).toBeUndefined();
    deleting.metadata!.deletionTimestamp = new Date(T0) as never;
    expect(failuresToRemember(deleting)).toBeUndefined();
  });

  it('remembers, of a pod not being deleted, exactly what nodeFailuresOf reads of it for its own job', () => {
    fc.assert(
      fc.property(arbPod, (p) => {
        const seen = failuresToRemember(p);
        const job = seen?.job ?? JOB;
        expect(seen?.failures ?? []).toEqual(nodeFailuresOf(job, [p]));
      }),
    );
  });
});
